// Stop words for the search tokenizer (tokenize.ts), and so for the local lexical embedder:
// English, plus short German and French lists because meetings are also held in those languages.
// Words are written naturally here and folded the same way as tokens (NFKD, diacritics stripped,
// lowercase) when the set is built, so "für" matches "fur" and "à" matches "a".
//
// Tokens are split on apostrophes, so contraction pieces ("don", "t", "ll") and French elisions
// ("l", "qu", "j") are listed too. Words that are function words in one language but content words
// in English ("car", "war", "fast", "son", "main") are deliberately left out.

const ENGLISH = `
a about above after again against ago all almost along already also although always am among an
and another any anybody anyone anything anyway anyways are aren around as at back be became because
become been before being below between both but by can cannot could couldn d did didn do does doesn
doing don done during each either else enough etc even ever every everybody everyone
everything few for from further get gets getting go goes going gonna got gotta had hadn has hasn
have haven having he her here hers herself him himself his how however i if in into is isn it its
itself just kind kinda let ll lot lots m maybe me might mine more most much must mustn my myself
need no nor not nothing now o of off oh ok okay on once one only or other others our ours ourselves
out over own quite rather re really right s said same say says shall shan she should shouldn so
some somebody someone something sort stuff such sure t than that thats the their theirs them
themselves then there these they thing things think this those though through thus to too toward
towards uh um under until up upon us ve very via want wanna was wasn way we well were weren what
whatever when where whether which while who whom whose why will with within without won would
wouldn y yeah yes yet you your yours yourself yourselves
`;

const GERMAN = `
aber alle allem allen aller alles als also am an auch auf aus bei beim bin bis bist bitte da damit
dann das dass dem den denn der des dich die dir doch dort du durch ein eine einem einen einer eines
er es etwa euch euer für gegen genau gibt hab habe haben hast hat hatte hier ich ihm ihn ihnen ihr
ihre im in ist ja jetzt kann kannst kein keine können man mein meine mich mir mit muss nach nicht
noch nun nur ob oder ohne schon sehr sein seine sich sie sind so soll sollen über um und uns unser
unsere vom von vor wäre waren warum was weil wenn wer werden wie wieder wir wird wo wurde zu zum
zur
`;

const FRENCH = `
a ai alors au aussi autre aux avec avez avoir avons bien c ça ce cela celle celui ces cet cette ceux
chez comme comment d dans de des donc dont du elle elles en encore est et été être eu fait il ils j
je l la le les leur leurs lui m ma mais me même mes moi mon n ne nos notre nous on ont ou où par pas
peu peut plus pour pourquoi qu quand que quel quelle qui s sa sans se ses si sont sous sur t ta
te tes toi ton tous tout toute toutes très tu un une vers voilà vos votre vous y
`;

/** Folds a word the same way the tokenizer folds tokens. */
export function foldWord(word: string): string {
  return word
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/æ/g, 'ae')
    .replace(/œ/g, 'oe')
    .replace(/ø/g, 'o')
    .replace(/ł/g, 'l')
    .replace(/đ/g, 'd')
    .replace(/þ/g, 'th');
}

function wordsOf(list: string): string[] {
  return list
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .map(foldWord);
}

export const STOP_WORDS: ReadonlySet<string> = new Set([
  ...wordsOf(ENGLISH),
  ...wordsOf(GERMAN),
  ...wordsOf(FRENCH),
]);

export function isStopWord(foldedWord: string): boolean {
  return STOP_WORDS.has(foldedWord);
}
