import { WEBHOOK_DESCRIPTION_MAX } from '@/server/domain';
import { TextField } from '../ui/field';

// The URL and description fields of an endpoint, shared by the create form and the edit dialog.

/**
 * Which URLs the server accepts, in words, under the URL field. The server's WEBHOOK_ALLOW_PRIVATE_URLS
 * (for development and tests) also allows http:// and addresses on private networks or loopback;
 * the page reads it on the server and passes it down, so the hint says what the server will do.
 */
export function endpointUrlHint(allowPrivateUrls: boolean): string {
  return allowPrivateUrls
    ? 'Use https:// or http://; this server also accepts addresses on private networks and loopback, such as 127.0.0.1.'
    : 'Use https:// and an address reachable from the public internet; private networks and loopback are refused.';
}

interface FieldProps {
  value: string;
  onChange(value: string): void;
  error: string | null;
  hint?: string;
  placeholder?: string;
  'data-testid'?: string;
}

export function EndpointUrlField({ onChange, ...props }: FieldProps) {
  return (
    <TextField
      label="Endpoint URL"
      name="url"
      type="url"
      inputMode="url"
      autoComplete="off"
      spellCheck={false}
      required
      onChange={(e) => onChange(e.target.value)}
      {...props}
    />
  );
}

export function EndpointDescriptionField({ onChange, ...props }: FieldProps) {
  return (
    <TextField
      label="Description (optional)"
      name="description"
      autoComplete="off"
      maxLength={WEBHOOK_DESCRIPTION_MAX}
      onChange={(e) => onChange(e.target.value)}
      {...props}
    />
  );
}
