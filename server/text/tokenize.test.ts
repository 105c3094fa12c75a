import { describe, expect, it } from 'vitest';
import { tokenize as tokenizeForEmbedding } from '../embeddings/local-embedder';
import { matchSpans, tokenize } from './tokenize';

const marked = (text: string, query: string) =>
  matchSpans(text, query).map((s) => text.slice(s.start, s.end));

describe('matchSpans (the highlighting of search results)', () => {
  it('marks the words of the text that share a stem with a word of the query', () => {
    expect(marked('The budgets were approved; budgeting starts Monday.', 'budget')).toEqual([
      'budgets',
      'budgeting',
    ]);
    expect(marked('Failover took eleven minutes', 'failovers minute')).toEqual(['Failover', 'minutes']);
  });

  it('folds case and accents', () => {
    expect(marked('Die Prüfung ist morgen', 'PRUFUNG')).toEqual(['Prüfung']);
    expect(marked("L'équipe a décidé", 'equipe')).toEqual(['équipe']);
  });

  it('never marks stop words, in the text or from the query', () => {
    expect(marked('What about the budget for this quarter?', 'what about the budget')).toEqual(['budget']);
    expect(matchSpans('It was what it was', 'it was what')).toEqual([]);
  });

  it('reads numbers as the search does', () => {
    expect(marked('Latency went from 3.5 to 4 seconds, 1,000 requests', '3.5 1000')).toEqual([
      '3.5',
      '1,000',
    ]);
  });

  it('marks nothing for an empty or meaningless query', () => {
    expect(matchSpans('budget review', '')).toEqual([]);
    expect(matchSpans('budget review', '?!')).toEqual([]);
  });

  it('gives spans in order, without overlap, inside the text', () => {
    const text = 'Budget, budget and more budget-planning: the budget.';
    const spans = matchSpans(text, 'budget');
    expect(spans.length).toBe(4);
    for (const [i, s] of spans.entries()) {
      expect(s.start).toBeLessThan(s.end);
      expect(s.end).toBeLessThanOrEqual(text.length);
      if (i > 0) expect(s.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
    }
  });
});

describe('one tokenizer', () => {
  it('is the one the local embedder and the snippets use', () => {
    expect(tokenizeForEmbedding).toBe(tokenize);
  });
});
