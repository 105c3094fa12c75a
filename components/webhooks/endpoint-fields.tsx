import { WEBHOOK_DESCRIPTION_MAX } from '@/server/domain';
import { TextField } from '../ui/field';

// The URL and description fields of an endpoint, shared by the create form and the edit dialog.

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
