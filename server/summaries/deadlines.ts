// Deadline phrases as people say them in meetings, in English, German and French: "by Friday",
// "next Tuesday", "EOD", "in Q3", "bis Ende der Woche", "d'ici vendredi". The extractive
// summarizer attaches the first one in a sentence to its action item, and a firm one ("by",
// "until", "bis", "avant") with an obligation ("need", "must") makes a sentence an action item
// even without an owner (see extractive-summarizer.ts). A phrase is kept as said, never resolved
// to a date.

const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const MONTH =
  '(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)';
const PERIOD = '(?:(?:the )?(?:day|week|month|quarter|year|sprint|business day))';
const DATE = `(?:${MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?(?:,? \\d{4})?|(?:the )?\\d{1,2}(?:st|nd|rd|th)?(?: of)? ${MONTH}(?:,? \\d{4})?|\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?|\\d{4}-\\d{2}-\\d{2})`;
const RELATIVE =
  `(?:(?:this|next|coming) (?:${WEEKDAY}|week|month|quarter|sprint|year)|${WEEKDAY}(?: (?:morning|afternoon|evening|eod))?` +
  `|tomorrow(?: (?:morning|afternoon|evening|eod))?|tonight|today|end of ${PERIOD}|(?:the )?end of ${MONTH}|eod|eow|eom|cob|eoq` +
  `|${DATE}|noon|midday|the weekend|(?:in|within) (?:\\d+|one|two|three|four|a|a couple of) (?:days?|weeks?|months?|business days?))`;
// Quarters only count with a preposition: "the Q3 roadmap" is no deadline, "by Q3" is.
const EN_DEADLINE = `(?:(?:by|before|until|till|no later than|due|on|for) (?:the )?(?:${RELATIVE}|q[1-4](?: \\d{4})?)|(?:in|end of) q[1-4](?: \\d{4})?|${RELATIVE})`;
const DE_DAY = '(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)';
const DE_MONTH = '(?:januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember)';
const DE_RELATIVE =
  `(?:(?:nächste[nr]?|kommende[nr]?) (?:${DE_DAY}|woche|monat|sprint)|ende (?:der|des|dieser|diesen|nächster) (?:woche|monats|sprints|quartals|jahres)` +
  `|ende ${DE_MONTH}|übermorgen|morgen(?: früh)?|heute(?: abend)?|${DE_DAY}|\\d{1,2}\\. (?:${DE_MONTH}|\\d{1,2}\\.)|kw ?\\d{1,2})`;
const DE_DEADLINE = `(?:bis (?:spätestens )?(?:zum |zur )?${DE_RELATIVE}|${DE_RELATIVE})`;
const FR_DAY = '(?:lundi|mardi|mercredi|jeudi|vendredi|samedi)';
const FR_DEADLINE =
  `(?:(?:d'ici|avant|pour) (?:${FR_DAY}(?: prochain)?|demain|ce soir|la fin (?:de la semaine|du mois|du sprint)|le \\d{1,2}(?: [A-Za-z\\u00C0-\\u024F]+)?)` +
  `|${FR_DAY} prochain|la semaine prochaine|fin (?:de la semaine|du mois)|demain)`;
const DEADLINE = new RegExp(
  `(?<![A-Za-z\\u00C0-\\u024F\\d])(?:${EN_DEADLINE}|${DE_DEADLINE}|${FR_DEADLINE})(?![A-Za-z\\u00C0-\\u024F\\d])`,
  'i',
);
const FIRM_DEADLINE = /^(?:by|before|until|till|no later than|due|bis|d'ici|avant|end of|eod|eow|cob)\b/i;

/** The first deadline phrase in a sentence: "by Friday", "next Tuesday", "EOD", "bis Freitag". */
export function findDeadline(text: string): { phrase: string; firm: boolean } | null {
  const m = DEADLINE.exec(text);
  if (!m) return null;
  const raw = m[0].trim();
  // "on Friday" and "for tomorrow" read better as the bare day; "by", "until", "before" carry meaning.
  const phrase = raw.replace(/^(?:on|for) (?:the )?/i, '');
  return { phrase, firm: FIRM_DEADLINE.test(raw) };
}
