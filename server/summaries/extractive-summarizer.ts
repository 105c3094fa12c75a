import { SummarySchema, type Summary } from '../notes/summary';
import { findDeadline } from './deadlines';
import type { Summarizer, SummarizerInput } from './summarizer';

// The summarizer used when no language model is configured. It picks sentences by cue
// phrases (English first, some German and French), so it is deterministic, offline and linear
// in the transcript's length. It can only quote or lightly trim what was said; it does not
// paraphrase, resolve pronouns or understand a cue used in an unusual sense.

const MAX_DECISIONS = 6;
const MAX_ACTION_ITEMS = 10;
const MAX_TEXT = 240;
const CONTEXT_MAX = 320;
/** How far into the meeting the opening statements for the context are looked for. */
const CONTEXT_WINDOW = 60;

interface Sentence {
  speaker: string;
  text: string;
  /** text with leading greetings and fillers removed; '' when nothing substantive is left. */
  core: string;
  /** greetings, small talk, or too short to say anything on its own */
  smallTalk: boolean;
  /** greetings and small talk proper ("can you hear me"), not just short replies ("Perfect.") */
  pleasantry: boolean;
  question: boolean;
}

export class ExtractiveSummarizer implements Summarizer {
  readonly name = 'extractive';

  async summarize(input: SummarizerInput, opts?: { signal?: AbortSignal }): Promise<Summary> {
    opts?.signal?.throwIfAborted();
    return summarizeExtractively(input);
  }
}

/** The synchronous core of ExtractiveSummarizer, for callers that want no promise. */
export function summarizeExtractively(input: SummarizerInput): Summary {
  const participants = collectParticipants(input.segments);
  const sentences: Sentence[] = [];
  for (const segment of input.segments) {
    const speaker = segment.speaker.trim();
    for (const text of splitSentences(segment.content)) sentences.push(describeSentence(speaker, text));
  }

  const names = buildNameIndex(participants);
  const actionItems = extractActionItems(sentences, names);
  const summary: Summary = {
    context: buildContext(input.title, sentences),
    decisions: extractDecisions(sentences, actionItems.sentences),
    action_items: actionItems.items,
    participants,
    next_step: findNextStep(sentences) ?? actionItems.items[0]?.task ?? null,
    budget_mentioned: findBudget(sentences),
    sentiment: sentences.length ? classifySentiment(sentences) : null,
  };
  // Cheap, and it keeps the promise in the interface even if a rule above goes wrong.
  return SummarySchema.parse(summary);
}

// ---------------------------------------------------------------------------------------------
// Sentences

const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'approx',
  'inc',
  'ltd',
  'co',
  'corp',
  'dept',
  'no',
  'nr',
  'ca',
  'bzw',
  'usw',
  'evtl',
  'ggf',
  'inkl',
  'zb',
  'hr',
  'fr',
  'mme',
  'mlle',
  'cf',
  'fig',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'est',
  'min',
  'max',
  'resp',
]);

const GERMAN_MONTH_START =
  /^(?:januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember)\b/i;

/**
 * Splits one segment into sentences at . ! ? … followed by space, unless the full stop ends an
 * abbreviation ("e.g.", "Mr.", "z.B."), an initial ("J. Smith") or the next word starts in lower
 * case. Decimals ("2.5") never split because no space follows the point.
 */
export function splitSentences(content: string): string[] {
  const text = content.replace(/\s+/g, ' ').trim();
  if (!text) return [];
  const out: string[] = [];
  const boundary = /([.!?…]+)["'”’»)\]]*\s+/g;
  let start = 0;
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) {
    const end = m.index + m[0].length;
    const next = text.charAt(end);
    if (/\p{Ll}/u.test(next)) continue;
    if (m[1] === '.') {
      const before = text.slice(start, m.index);
      const word = (before.match(/(?:^|[\s(])([\p{L}.]+)$/u)?.[1] ?? '').toLowerCase();
      const bare = word.replace(/\./g, '');
      if (ABBREVIATIONS.has(bare) || /^\p{L}$/u.test(word) || /^(\p{L}\.)+\p{L}$/u.test(word)) continue;
      if (
        /\d$/.test(before) &&
        /^\d{1,2}$/.test(before.match(/\d+$/)?.[0] ?? '') &&
        GERMAN_MONTH_START.test(text.slice(end))
      )
        continue;
    }
    const sentence = text.slice(start, end).trim();
    if (sentence) out.push(sentence);
    start = end;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

// Greetings and fillers that can open a sentence; removed before judging what is left.
const AUDIENCE =
  "(?:,? (?:everyone|everybody|all|team|folks|guys|there|y'all|zusammen|allerseits|à tous|tout le monde))?";
const LEADING_FILLER = new RegExp(
  '^(?:(?:' +
    [
      'hi|hello|hey|hiya|howdy|hallo|servus|moin|bonjour|bonsoir|salut|hola|ciao',
      'good (?:morning|afternoon|evening)|morning|guten (?:morgen|tag|abend)',
      'welcome(?: (?:back|everyone|everybody|all))?|willkommen|bienvenue',
      '(?:thanks|thank you)(?: (?:all|everyone|everybody|so much|guys))? for (?:joining|coming|making (?:it|the time)|having me|your time)(?: (?:today|everyone|all))?',
      '(?:nice|good|great) to (?:see|meet|have) (?:you|everyone|everybody)(?: all| both| again)?',
      'thanks|thank you|danke(?: schön)?|merci(?: beaucoup)?',
    ].join('|') +
    `)${AUDIENCE}[\\s,.!:;—–-]+` +
    // Words that lead into a sentence: dropped before a space or a comma.
    '|(?:so|and|also|then|um+|uh+|hm+|okay|ok|alright|all right|well|yeah|yes|yep|anyway|na ja|genau|alors|bon|donc)(?=[\\s,.!:;—–-])[\\s,.!:;—–-]+' +
    // Words that are fillers only when punctuation follows ("Great, …" but not "Great progress").
    "|(?:great|cool|perfect|sure|fine|good|right|sounds good|that works|makes sense|got it|absolutely|exactly|d'accord|super|prima|parfait)[,.!:;—–-]+\\s*" +
    ')',
  'i',
);
// A name right after a greeting: "Hi Ana, …".
const LEADING_NAME = /^\p{Lu}[\p{L}'-]*[,!:]\s*/u;

// Whole sentences of small talk (checked after the fillers above are gone).
const END = '[\\s.!?]*$';
const SMALL_TALK = new RegExp(
  '^(?:' +
    [
      '(?:can|could) (?:you|everyone|everybody|you all|you guys) (?:hear|see) (?:me|us|my screen|it)',
      'can everyone (?:hear|see)|is everyone here|are we (?:all )?here|who else are we waiting',
      "how are (?:you|things|we)|how's (?:it going|everyone|everybody|the weekend)|how (?:was|were) (?:your|the) (?:weekend|holiday|vacation|trip)",
      `(?:i'm|i am|we're|we are|all) (?:good|fine|great|well|doing (?:well|good|great|fine))(?:,? (?:thanks|thank you|and you|too))*${END}`,
      `(?:let's|let us|shall we|we can) (?:get started|start|begin|kick (?:it |things )?off)(?:,? (?:then|shall we|everyone|everybody|folks))?${END}`,
      "you(?:'re| are) (?:on )?mute|sorry,? (?:i'm|i was|for being) (?:late|on mute)|sorry,? (?:go ahead|you go)",
      'let me (?:share|stop sharing) my screen|(?:give me a|just a) (?:sec|second|minute|moment)',
      'talk (?:to you|soon)|see you|bye|have a (?:good|great|nice) (?:day|weekend|evening|one)',
      "wie geht(?:'s| es)|(?:kannst du|können sie|könnt ihr|hört ihr|hören sie) mich|ça va|vous m'entendez|tu m'entends",
      'thanks?|thank you|danke|merci',
    ].join('|') +
    ')(?![\\w\\u00C0-\\u024F])',
  'i',
);

function describeSentence(speaker: string, raw: string): Sentence {
  const text = raw.replace(/[’‘]/g, "'");
  let core = text;
  for (let i = 0; i < 6; i++) {
    const stripped = core.replace(LEADING_FILLER, '');
    if (stripped === core) break;
    core = stripped.replace(LEADING_NAME, (name) => (/^(?:I|Ok|So)\b/.test(name) ? name : ''));
  }
  const pleasantry = SMALL_TALK.test(core);
  const smallTalk = pleasantry || wordCount(core) < 4;
  const question = /\?\s*["')]*$/.test(text);
  return { speaker, text, core: smallTalk ? '' : capitalize(core), smallTalk, pleasantry, question };
}

// ---------------------------------------------------------------------------------------------
// Participants and context

function collectParticipants(segments: SummarizerInput['segments']): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const { speaker } of segments) {
    const name = speaker.trim();
    const key = name.toLowerCase();
    if (!name || seen.has(key)) continue;
    seen.add(key);
    out.push(name);
  }
  return out;
}

function buildContext(title: string | null, sentences: Sentence[]): string | null {
  const [first] = sentences;
  if (!first) return null;
  const picked: string[] = [];
  const window = sentences.slice(0, CONTEXT_WINDOW);
  for (const s of window) {
    if (!s.core) continue;
    if (picked.length && (picked.join(' ').length + s.core.length > CONTEXT_MAX || s.question)) break;
    const piece = truncate(s.core, CONTEXT_MAX);
    picked.push(piece);
    // Two sentences, or one long enough on its own.
    if (picked.length === 2 || (picked.length === 1 && piece.length > 160)) break;
  }
  // A meeting of only small talk still gets a context: what was said first.
  if (!picked.length) picked.push(truncate(first.text, CONTEXT_MAX));
  const body = picked.join(' ');
  const cleanTitle = title?.trim();
  return cleanTitle ? `${cleanTitle} — ${body}` : body;
}

// ---------------------------------------------------------------------------------------------
// Decisions

const DECISION_CUE = new RegExp(
  [
    "\\bwe(?:'ve| have)? (?:decided|agreed|settled on|chose|picked)\\b",
    "\\b(?:we'll|we will|let's|lets|we're going to|we are going to|we're gonna) (?:go|going) (?:with|for|ahead)\\b",
    '\\b(?:the )?decisions?(?: is| was| are|:)|\\bdecided\\b|\\bagreed\\b|\\bapproved\\b|\\bfinal answer\\b|\\bsign(?:ed)? off\\b',
    "\\bwe(?:'re| are) (?:moving|going) (?:forward|ahead) with\\b|\\bthe plan is\\b|\\bsettled\\b",
    '\\bwir machen\\b|\\bentschieden\\b|\\bbeschlossen\\b|\\bgeeinigt\\b|\\bwir nehmen\\b|\\bfreigegeben\\b|\\bvereinbart\\b',
    '\\bon part sur\\b|\\bd[ée]cid[ée]e?s?(?![\\w\\u00C0-\\u024F])|\\bvalid[ée]e?s?(?![\\w\\u00C0-\\u024F])|\\bconvenu\\b|\\bon (?:valide|garde|prend)\\b|\\bon va partir sur\\b',
    '\\bdecidimos\\b|\\bvamos con\\b|\\bacordamos\\b',
  ].join('|'),
  'i',
);
// "we will" alone is a weak cue: a decision only when the sentence is not already an action item.
const WEAK_DECISION_CUE = /\b(?:we will|we'll|wir werden|on va)\b/i;
const NOT_A_DECISION =
  /\b(?:we will|we'll) (?:see|talk|discuss|get back|get into|figure|find out|have to see|look into)\b/i;
const NEGATED_DECISION =
  /\b(?:not|n't|haven't|hasn't|yet to|nicht|noch nicht|pas encore|pas)\s+(?:\w+\s+)?(?:decided|agreed|approved|entschieden|beschlossen|d[ée]cid[ée])/i;
const PROPOSAL =
  /\b(?:let's|let us|we should|we could|how about|what if we|i (?:propose|suggest|recommend)|my (?:proposal|suggestion) is|shall we|why don't we|lass uns|lasst uns|wir sollten|ich schlage vor|on pourrait|je propose)\b/i;
const AFFIRMATION =
  /^(?:agreed|approved|deal|sounds good|let's do (?:it|that)|einverstanden|abgemacht|d'accord|ça marche|entendu|okay,? agreed)[.!]*$/i;

function extractDecisions(sentences: Sentence[], actionSentences: Set<Sentence>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (text: string) => {
    const cleaned = truncate(stripTrailingPunctuation(text), MAX_TEXT);
    const key = normalizeKey(cleaned);
    if (!key || seen.has(key)) return;
    seen.add(key);
    out.push(cleaned);
  };
  for (const [i, s] of sentences.entries()) {
    if (out.length >= MAX_DECISIONS) break;
    if (s.smallTalk && !AFFIRMATION.test(s.text.trim())) continue;
    if (AFFIRMATION.test(s.text.trim())) {
      // "Agreed." confirms what someone else just proposed.
      const prev = sentences[i - 1];
      if (prev && prev.speaker !== s.speaker && prev.core && PROPOSAL.test(prev.text)) add(prev.core);
      continue;
    }
    if (s.question || NEGATED_DECISION.test(s.text)) continue;
    if (PROPOSAL.test(s.text) && !DECISION_CUE.test(s.text)) continue;
    if (DECISION_CUE.test(s.text)) add(s.core);
    else if (WEAK_DECISION_CUE.test(s.text) && !NOT_A_DECISION.test(s.text) && !actionSentences.has(s))
      add(s.core);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Action items

interface NameIndex {
  /** lower-cased first names and full names → participant as spelled in the transcript */
  byName: Map<string, string>;
  /** "Ana will …", "Ben to …": a participant's name followed by a commitment */
  commitment: RegExp | null;
}

function buildNameIndex(participants: string[]): NameIndex {
  const byName = new Map<string, string>();
  for (const p of participants) {
    if (/^speaker\b|^unknown\b|^\d/i.test(p)) continue;
    byName.set(p.toLowerCase(), p);
    const first = p.split(/\s+/)[0];
    if (first && first.length > 1 && !byName.has(first.toLowerCase())) byName.set(first.toLowerCase(), p);
  }
  const alternatives = [...byName.keys()]
    .sort((a, b) => b.length - a.length)
    .map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const commitment = alternatives.length
    ? new RegExp(
        `(?<![A-Za-z\\u00C0-\\u024F])(${alternatives.join('|')})(?:'ll| will| is going to| to| can| needs to| should| takes| owns| übernimmt| kümmert sich| macht| va| s'occupe)(?![A-Za-z\\u00C0-\\u024F])`,
        'i',
      )
    : null;
  return { byName, commitment };
}

const FIRST_PERSON_COMMITMENT =
  /(?<![A-Za-z\u00C0-\u024F'])(?:I'll|I will|I'm going to|I am going to|I'm gonna|I can take|I can handle|I can do|I can send|I'll be sending|let me (?:take|handle|send|check|follow|draft|write|prepare|set up|schedule|look)|ich (?:werde|kümmere mich|mache das|schicke|schreibe|übernehme|kläre|prüfe|melde mich)|(?:mache|übernehme|kläre|schicke|erledige) ich|je (?:vais|m'en occupe|m'occupe|m'engage|envoie|prépare)|me encargo|voy a)(?![A-Za-z\u00C0-\u024F])/i;
// Self-talk that looks like a commitment but is none.
const NOT_A_COMMITMENT =
  /\bI(?:'ll| will) (?:be (?:honest|frank|brief|quick)|tell you what|admit|say|have to say|just say|guess|pass it|hand (?:it )?over|let you (?:go|talk)|stop (?:sharing|there)|keep it short|mute|see)\b/i;
const REQUEST =
  /(?<![A-Za-z\u00C0-\u024F])(?:can you|could you|would you|will you|can we get you to|please|kannst du|könntest du|können sie|könnten sie|bitte|peux-tu|pourrais-tu|pouvez-vous|pourriez-vous|tu peux|s'il te pla[iî]t|s'il vous pla[iî]t|puedes|podrías)(?![A-Za-z\u00C0-\u024F])/i;
const OTHER_ACTION_CUE =
  /\b(?:action items?|to-?do|will send|will (?:share|circulate|draft|prepare|schedule|set up|update|review)|take care of|follow[- ]up|follow up|owner(?: is| will be)?|assign(?:ed)? to|is on it)\b|(?<![\w\u00C0-\u024F])(?:übernimmt|kümmert sich)\b/i;
// A deadline with no other cue makes an action item only together with an obligation.
const OBLIGATION =
  /\b(?:need|needs|must|should|have to|has to|due|send|finish|ship|deliver|submit|muss|müssen|sollte|il faut|doit)\b/i;

const PRONOUN_ONLY_TASK =
  /^(?:do|handle|check|fix|send|take care of|look (?:at|into)|follow up on|own|take)(?: (?:it|that|this|them|those|one))?$/i;

export interface ExtractedActionItem {
  task: string;
  owner: string | null;
  deadline: string | null;
}

function extractActionItems(
  sentences: Sentence[],
  names: NameIndex,
): { items: ExtractedActionItem[]; sentences: Set<Sentence> } {
  const items: ExtractedActionItem[] = [];
  const used = new Set<Sentence>();
  const byKey = new Map<string, ExtractedActionItem>();
  // The item most recently asked of someone, for "Sure, I'll send it tomorrow" in reply.
  let lastRequest: ExtractedActionItem | null = null;
  for (const s of sentences) {
    // A short reply ("Sure, by Friday.") is no item of its own but can carry the deadline.
    if (s.smallTalk && (s.pleasantry || !lastRequest)) continue;
    let parsed = parseActionItem(s, names);
    if (parsed.kind === 'none') continue;
    if (parsed.kind === 'item' && s.smallTalk) parsed = { kind: 'vague', deadline: parsed.item.deadline };
    used.add(s);
    if (parsed.kind === 'vague') {
      if (lastRequest && lastRequest.owner === s.speaker && !lastRequest.deadline)
        lastRequest.deadline = parsed.deadline;
      lastRequest = null;
      continue;
    }
    const item = parsed.item;
    const key = taskKey(item.task);
    const same = byKey.get(key);
    if (same) {
      same.owner ??= item.owner;
      same.deadline ??= item.deadline;
      lastRequest = null;
      continue;
    }
    if (items.length >= MAX_ACTION_ITEMS) continue;
    byKey.set(key, item);
    items.push(item);
    lastRequest = parsed.request && item.owner ? item : null;
  }
  return { items, sentences: used };
}

type ParsedActionItem =
  | { kind: 'none' }
  /** a commitment with nothing but a pronoun for its object: "I'll do it by Friday" */
  | { kind: 'vague'; deadline: string | null }
  | { kind: 'item'; item: ExtractedActionItem; request: boolean };

const NONE: ParsedActionItem = { kind: 'none' };

function parseActionItem(s: Sentence, names: NameIndex): ParsedActionItem {
  const text = s.text;
  const firstPerson = FIRST_PERSON_COMMITMENT.exec(text);
  const request = REQUEST.exec(text);
  const named = names.commitment?.exec(text) ?? null;
  const namedName = named?.[1];
  const namedOwner =
    namedName && /^\p{Lu}/u.test(namedName) ? (names.byName.get(namedName.toLowerCase()) ?? null) : null;
  const deadline = findDeadline(text);
  const otherCue = OTHER_ACTION_CUE.test(text);
  if (firstPerson && NOT_A_COMMITMENT.test(text) && !request && !deadline) return NONE;
  if (!firstPerson && !request && !namedOwner && !otherCue) {
    if (!deadline?.firm || !OBLIGATION.test(text)) return NONE;
  }
  if (s.question && !request) return NONE;

  let owner: string | null = null;
  let task = s.core || text;
  const isRequest = !!request && !(firstPerson && firstPerson.index <= request.index);
  if (firstPerson && !isRequest) {
    owner = s.speaker || null;
    // "I'll …" starts the task; in "Das Review mache ich" the object comes first, so keep it all.
    if (/^(?:I|ich|je|let me|me|voy)\b/i.test(firstPerson[0])) task = text.slice(firstPerson.index);
  } else if (request) {
    owner = findAddressee(text, request.index, names, s.speaker);
    // "Send me the deck, please": the request word does not start the task.
    if (!/^(?:please|bitte|s'il)/i.test(request[0])) task = text.slice(request.index);
  } else if (named && namedOwner) {
    owner = namedOwner;
    task = text.slice(named.index);
  }
  task = cleanTask(task, deadline?.phrase ?? null, names);
  if (!task || wordCount(task) < 2 || PRONOUN_ONLY_TASK.test(task)) {
    return firstPerson && !isRequest ? { kind: 'vague', deadline: deadline?.phrase ?? null } : NONE;
  }
  return { kind: 'item', item: { task, owner, deadline: deadline?.phrase ?? null }, request: isRequest };
}

/** "Ana, can you …", "… can you send it, Ana?", "@Ana please …" → Ana, when Ana is a participant. */
function findAddressee(text: string, requestIndex: number, names: NameIndex, speaker: string): string | null {
  if (!names.byName.size) return null;
  const candidates: string[] = [];
  const lead = text
    .slice(0, requestIndex)
    .match(/(?:^|[,;:.!]\s*|@|\s)(\p{Lu}[\p{L}'-]*(?: \p{Lu}[\p{L}'-]*)?)\s*[,:]?\s*$/u);
  if (lead?.[1]) candidates.push(lead[1]);
  const trail = text.match(/,\s*@?(\p{Lu}[\p{L}'-]*(?: \p{Lu}[\p{L}'-]*)?)\s*[?.!]*$/u);
  if (trail?.[1]) candidates.push(trail[1]);
  for (const [, handle] of text.matchAll(/@(\p{L}+)/gu)) if (handle) candidates.push(handle);
  for (const c of candidates) {
    const owner = names.byName.get(c.trim().toLowerCase());
    if (owner && owner !== speaker) return owner;
  }
  return null;
}

function cleanTask(raw: string, deadline: string | null, names: NameIndex): string {
  let t = stripTrailingPunctuation(raw);
  if (deadline) {
    const idx = t.toLowerCase().lastIndexOf(deadline.toLowerCase());
    if (idx >= 0) {
      const before = t
        .slice(0, idx)
        .replace(/[\s,]+(?:by|before|until|till|no later than|due|on|for|bis|d'ici|avant|pour)\s*$/i, '');
      t = `${before} ${t.slice(idx + deadline.length)}`;
    }
  }
  const leads: RegExp[] = [
    /^(?:action items?|to-?do)\s*[:\-–—]?\s*/i,
    /^(?:I'll|I will|I'm going to|I am going to|I'm gonna|I can|let me)\s+/i,
    /^(?:can|could|would|will) you\s+(?:please\s+)?/i,
    /^can we get you to\s+/i,
    /^please\s+/i,
    /^(?:ich werde|ich)\s+/i,
    /^(?:kannst du|könntest du|können sie|könnten sie)\s+(?:bitte\s+)?/i,
    /^je\s+(?:vais\s+)?/i,
    /^(?:peux-tu|pourrais-tu|pouvez-vous|pourriez-vous|tu peux)\s+/i,
    /^(?:also|just|quickly|then|go ahead and|definitely|probably|try to|make sure to)\s+/i,
  ];
  for (let pass = 0; pass < 3; pass++) {
    t = t.replace(/^@?(\p{Lu}[\p{L}'-]*)[,:]\s+/u, (m, name: string) =>
      names.byName.has(name.toLowerCase()) ? '' : m,
    );
    for (const re of leads) t = t.replace(re, '');
  }
  // "Ben to draft the proposal" / "Ben will draft …" → "draft the proposal"
  const named = t.match(/^(\p{Lu}[\p{L}'-]*)(?:'ll| will| is going to| to| can| needs to| should)\s+(.+)$/u);
  const [, who, rest] = named ?? [];
  if (who && rest && names.byName.has(who.toLowerCase())) t = rest;
  t = t
    .replace(/,?\s+(?:please|bitte|s'il te pla[iî]t|s'il vous pla[iî]t)(?=[\s,.!?]*$)/i, '')
    .replace(/,\s*@?(\p{Lu}[\p{L}'-]*)\s*$/u, (m, name: string) =>
      names.byName.has(name.toLowerCase()) ? '' : m,
    )
    .replace(/\s+bitte\b/i, '')
    .replace(/\s{2,}/g, ' ')
    .replace(/[\s,;:—–-]+$/u, '')
    .replace(/\s+(?:and|und|et|so)$/i, '')
    .trim();
  return capitalize(truncate(t, MAX_TEXT));
}

// ---------------------------------------------------------------------------------------------
// Next step

const NEXT_STEP_CUE =
  /\b(?:next steps?|next time|follow-up (?:meeting|call)|follow up (?:meeting|call)|nächste[rn]? (?:schritte?|termin|mal)|prochaines? (?:étapes?|fois|réunion))\b/i;

function findNextStep(sentences: Sentence[]): string | null {
  let found: string | null = null;
  for (const s of sentences) {
    if (!s.core || s.question || !NEXT_STEP_CUE.test(s.core)) continue;
    let text = stripTrailingPunctuation(s.core);
    const rest = text.replace(
      /^(?:so,?\s+|okay,?\s+)?(?:the |our |as (?:a|the) )?(?:next steps?|nächster schritt|nächste schritte|prochaine étape)\s*(?:is|are|will be|would be|ist|sind|c'est|:|,|—|-)?\s*(?:to\s+|then\s+|that\s+)?/i,
      '',
    );
    if (rest !== text && wordCount(rest) >= 3) text = capitalize(rest);
    // The wrap-up usually comes last, so a later statement wins over an earlier one.
    found = truncate(text, MAX_TEXT);
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Budget

const NUM = String.raw`\d{1,3}(?:[,.\u00a0\u202f ]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?`;
const MULT = String.raw`(?:k|m|mm|bn|b|thousand|million|billion|mio\.?|mrd\.?|tsd\.?|millionen|milliarden|tausend|millions?|milliards?)`;
const MONEY = new RegExp(
  [
    String.raw`(?:US\$|CA\$|A\$|C\$|[$€£¥])\s?(?:${NUM})(?:\s?${MULT}(?![A-Za-z\u00C0-\u024F]))?`,
    String.raw`(?<![A-Za-z\u00C0-\u024F])(?:USD|EUR|GBP|CHF|CAD|AUD|JPY)\s?(?:${NUM})(?:\s?${MULT}(?![A-Za-z\u00C0-\u024F]))?`,
    String.raw`(?<![A-Za-z\u00C0-\u024F\d.,])(?:${NUM})(?:\s?${MULT})?\s?(?:[$€£]|(?:dollars?|bucks|euros?|eur|usd|gbp|chf|pounds?|franken|francs?)(?![A-Za-z\u00C0-\u024F]))`,
  ].join('|'),
  'i',
);
const BUDGET_AMOUNT = new RegExp(
  String.raw`\b(?:budget|budgets|spend|spending|cap)(?:\s*:|\s+(?:of|is|was|at|around|about|von|de|d'environ|up to|bis zu|is around|is about|of about|of around|of up to))?\s*(?:~|about|around|roughly|approximately|approx\.|ca\.|environ|rund|etwa)?\s*((?:${NUM})\s?${MULT}|\d{1,3}(?:[,.\u00a0\u202f ]\d{3})+|\d{5,})(?![A-Za-z\u00C0-\u024F\d])` +
    String.raw`|(?<![A-Za-z\u00C0-\u024F\d.,])((?:${NUM})\s?${MULT})\s+(?:budget|for the budget)\b`,
  'i',
);
const BUDGET_CONTEXT =
  /\b(?:budget|cost|costs|price|pricing|spend|invest|investment|quote|deal|contract|licen[cs]e|fee|fees|kosten|preis|angebot|coût|prix|devis|presupuesto)\b/i;

function findBudget(sentences: Sentence[]): string | null {
  let firstAny: string | null = null;
  for (const s of sentences) {
    const money = MONEY.exec(s.text)?.[0];
    const phrase = BUDGET_AMOUNT.exec(s.text);
    const phraseAmount = phrase?.[1] ?? phrase?.[2];
    if (money && BUDGET_CONTEXT.test(s.text)) return tidyAmount(money);
    if (phraseAmount) return tidyAmount(money ?? phraseAmount);
    if (money && !firstAny) firstAny = tidyAmount(money);
  }
  return firstAny;
}

function tidyAmount(amount: string): string {
  return amount
    .replace(/[\u00a0\u202f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Sentiment

const POSITIVE = new Set(
  (
    'good great excellent awesome amazing fantastic perfect happy glad pleased love loved liked excited exciting ' +
    'impressive impressed nice success successful smooth smoothly solid helpful confident easy easier win won progress ' +
    'improved improvement better best resolved fixed works appreciate appreciated agree wonderful brilliant ' +
    'promising strong valuable thrilled enjoy enjoyed positive productive efficient ' +
    'gut super toll prima klasse hervorragend perfekt zufrieden erfolgreich geschafft freue gelöst besser schnell ' +
    'bien génial excellent parfait content contente ravi réussi réussite efficace mieux bravo'
  ).split(' '),
);
const NEGATIVE = new Set(
  (
    'bad terrible awful horrible poor problem problems concern concerns concerned worried worry frustrated frustrating ' +
    'angry upset disappointed disappointing fail failed failing failure outage outages broken crash crashed crashes ' +
    'delay delayed delays blocked blocker blockers risk risky difficult unfortunately unacceptable slow slower expensive ' +
    'churn complaint complaints complained wrong lost missed mistake mistakes incident incidents downtime escalation ' +
    'escalated painful worse worst stuck behind unhappy annoyed chaos critical severe breach timeout timeouts errors ' +
    'schlecht leider problem probleme fehler verzögert verzögerung blockiert ausgefallen ausfall kritisch schwierig ' +
    'ärgerlich unzufrieden sorge sorgen risiko langsam kaputt ' +
    'mauvais problème problèmes malheureusement retard bloqué panne inquiet inquiète difficile erreur échec grave lent'
  ).split(' '),
);
const GREETING_WITH_POLARITY =
  /\b(?:good (?:morning|afternoon|evening|to see you)|nice to (?:see|meet) you|great to (?:see|have) you)\b/gu;
const NEGATORS = new Set([
  'not',
  'no',
  'never',
  'nothing',
  'hardly',
  'without',
  'nicht',
  'kein',
  'keine',
  'keinen',
  'nie',
  'pas',
  'jamais',
  'sans',
]);

function classifySentiment(sentences: Sentence[]): 'positive' | 'neutral' | 'negative' | 'mixed' {
  let pos = 0;
  let neg = 0;
  const word = /[\p{L}']+/gu;
  for (const s of sentences) {
    // Greetings ("good morning") and thanks say nothing about how the meeting went.
    if (s.pleasantry) continue;
    const tokens = s.text.toLowerCase().replace(GREETING_WITH_POLARITY, ' ').match(word) ?? [];
    for (const [i, t] of tokens.entries()) {
      const polarity = POSITIVE.has(t) ? 1 : NEGATIVE.has(t) ? -1 : 0;
      if (!polarity) continue;
      let negated = false;
      for (const p of tokens.slice(Math.max(0, i - 3), i)) {
        if (NEGATORS.has(p) || p.endsWith("n't")) negated = true;
      }
      if (polarity > 0 !== negated) pos++;
      else neg++;
    }
  }
  const total = pos + neg;
  if (total < 2) return 'neutral';
  const balance = (pos - neg) / total;
  if (balance >= 0.3) return 'positive';
  if (balance <= -0.3) return 'negative';
  return pos >= 2 && neg >= 2 ? 'mixed' : 'neutral';
}

// ---------------------------------------------------------------------------------------------
// Text helpers

function wordCount(text: string): number {
  return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function stripTrailingPunctuation(text: string): string {
  return text.replace(/[\s.!?…;:,]+$/u, '').trim();
}

// Verbs that say "do it" without saying what, so "Take the export" and "Take care of the export" match.
const TASK_KEY_NOISE =
  /^(?:take care of|take|handle|do|own|work on|look into|look at|get|finish|make sure)\s+|\b(?:the|a|an|this|that|our|my|your)\b\s*/gi;

function taskKey(task: string): string {
  return normalizeKey(task).replace(TASK_KEY_NOISE, '').replace(/\s+/g, ' ').trim() || normalizeKey(task);
}

function normalizeKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/u, '')}…`;
}
