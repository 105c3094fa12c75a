import { FORM_NAMES, type FormName } from '../domain';
import { profileA } from './form-a/profile';
import { profileB } from './form-b/profile';
import type { FormProfile } from './form-profile';

/**
 * The registry of what each API form says (./form-profile.ts); ./forms.ts is the registry of
 * what each serves. Both are keyed by FormName, so the compiler refuses a form missing from
 * either. Light enough for Next's proxy and the browser.
 */
export const FORM_PROFILES: Record<FormName, FormProfile> = { A: profileA, B: profileB };

/** The profiles in FormName order, for lists (the settings app's choices, the docs switch). */
export const formProfileList = (): FormProfile[] => FORM_NAMES.map((name) => FORM_PROFILES[name]);
