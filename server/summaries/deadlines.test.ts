import { describe, expect, it } from 'vitest';
import { findDeadline } from './deadlines';

describe('findDeadline', () => {
  it.each([
    ['send it by March 3', 'by March 3'],
    ['done by end of month', 'by end of month'],
    ['ready EOD please', 'EOD'],
    ['we ship in Q3', 'in Q3'],
    ['the Q3 roadmap', null],
    ['next Tuesday we meet', 'next Tuesday'],
    ['call me on Monday', 'Monday'],
    ['by the 15th of June', 'by the 15th of June'],
    ['within two weeks', 'within two weeks'],
    ['I will do it tomorrow morning', 'tomorrow morning'],
    ['bis Ende der Woche', 'bis Ende der Woche'],
    ['bis zum 3. März', 'bis zum 3. März'],
    ["d'ici vendredi", "d'ici vendredi"],
    ['la semaine prochaine', 'la semaine prochaine'],
    ['no date here', null],
  ])('%j → %j', (text, expected) => {
    expect(findDeadline(text)?.phrase ?? null).toBe(expected);
  });
});
