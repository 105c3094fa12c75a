import type { FormName } from '../domain';
import { formA } from './form-a';
import { formB } from './form-b';
import type { RestForm } from './rest-form';

/**
 * The registry of API forms as served: a form is its folder plus one line here and one in
 * ./form-profiles.ts (what it says, light enough for the proxy and the browser). Every place
 * that differs by form looks the form up in one of the two; the compiler refuses a FormName
 * (server/domain.ts) missing from either.
 */
export const FORMS: Record<FormName, RestForm> = { A: formA, B: formB };

/** One value per form, built from its entry: a form added to the registry is never missed. */
export function mapForms<T>(build: (form: RestForm) => T): Record<FormName, T> {
  return Object.fromEntries(
    (Object.keys(FORMS) as FormName[]).map((name) => [name, build(FORMS[name])]),
  ) as Record<FormName, T>;
}
