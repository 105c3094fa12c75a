import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/** Fewer characters are too easy to guess, whatever they are. */
export const PASSWORD_MIN_CHARACTERS = 10;
/** bcrypt reads at most 72 bytes: anything after them would be ignored, so it is refused instead. */
export const PASSWORD_MAX_BYTES = 72;
/** zxcvbn's 0–4 scale; 3 resists an offline attack on a slow hash (about 10^8 guesses and more). */
const MIN_SCORE = 3;

/** True when bcrypt would ignore part of the password. Cheap: checked before any hashing. */
export function passwordTooLong(password: string): boolean {
  // Over 72 UTF-16 units is over 72 bytes: no need to encode a huge string to know.
  return password.length > PASSWORD_MAX_BYTES || Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES;
}

let zxcvbn: Promise<ZxcvbnFactory> | undefined;

/**
 * zxcvbn and its dictionaries (several MB as source, more as objects) are loaded with the first
 * password checked, not when the server starts: a server checks passwords only at sign-up and
 * on a change of password, and every module loaded stays resident.
 */
function strengthChecker(): Promise<ZxcvbnFactory> {
  zxcvbn ??= Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
  ]).then(
    ([{ ZxcvbnFactory }, common, english]) =>
      new ZxcvbnFactory({
        dictionary: { ...common.dictionary, ...english.dictionary },
        graphs: common.adjacencyGraphs,
        translations: english.translations,
        // The default (100) lets a crafted 72-byte password of l33t characters cost half a second
        // of CPU on an anonymous request; 10 still catches "p@ssw0rd"-style substitutions.
        l33tMaxSubstitutions: 10,
        maxLength: PASSWORD_MAX_BYTES,
      }),
    (err: unknown) => {
      zxcvbn = undefined;
      throw err;
    },
  );
  return zxcvbn;
}

/**
 * Why a new password is refused, or null when it is acceptable: within what bcrypt uses, long
 * enough, and not common or guessable (zxcvbn, with the account's own email and name counted as
 * guessable too). Length is checked first, so the strength estimate only ever sees 72 bytes.
 */
export async function passwordProblem(
  password: string,
  userInputs: (string | null | undefined)[] = [],
): Promise<string | null> {
  if (passwordTooLong(password)) {
    return `Use a password of at most ${PASSWORD_MAX_BYTES} bytes: that is ${PASSWORD_MAX_BYTES} plain letters or digits, fewer with accents or emoji (only that much of a password is used)`;
  }
  if ([...password].length < PASSWORD_MIN_CHARACTERS)
    return `Use a password of at least ${PASSWORD_MIN_CHARACTERS} characters`;
  // The email, its local part and its words, the name and its words: all guessable by anyone.
  const inputs = userInputs.flatMap((i) => {
    if (!i) return [];
    // split always yields at least one part: the text before the first @, or all of it.
    const [localPart = i] = i.split('@');
    return [i, localPart, ...i.split(/[@.\s_+-]+/).filter((part) => part.length >= 3)];
  });
  const result = (await strengthChecker()).check(password, inputs);
  if (result.score >= MIN_SCORE) return null;
  const why = result.feedback.warning ? `${result.feedback.warning.replace(/\.$/, '')}. ` : '';
  const tip = result.feedback.suggestions[0] ?? 'Try a few unrelated words together.';
  return `This password is too easy to guess. ${why}${tip}`;
}
