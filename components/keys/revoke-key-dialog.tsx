'use client';

import { useId, useState } from 'react';
import { Button } from '../ui/button';
import { Checkbox } from '../ui/checkbox';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { formatDateTime } from '../ui/relative-time';
import { type ApiKey, maskedKey } from './api-key';

/**
 * Revoke's confirmation. Revoking a replacement during its roll's overlap does not stop the key it
 * replaced, so the dialog says until when that key works and offers to revoke it in the same step
 * (one transaction on the server).
 */
export function RevokeKeyDialog({
  apiKey,
  replaced,
  replacement,
  pending,
  onConfirm,
}: {
  apiKey: ApiKey;
  /** The key this one replaced in a roll, while it still works (its overlap). */
  replaced?: ApiKey;
  /** The key that replaced this one, while this one is in its overlap. */
  replacement?: ApiKey;
  pending: boolean;
  onConfirm(alsoRevokeReplaced: boolean): void;
}) {
  const id = useId();
  // Unticked each time the dialog opens: revoking the older key too is a choice made here.
  const [alsoReplaced, setAlsoReplaced] = useState(false);
  const both = replaced !== undefined && alsoReplaced;

  return (
    <ConfirmDialog
      title={both ? 'Revoke both keys?' : 'Revoke key?'}
      onOpenChange={(open) => {
        if (open) setAlsoReplaced(false);
      }}
      description={
        <>
          The next API call with it gets 401. This revokes “{apiKey.name}” (
          <code className="font-mono">{maskedKey(apiKey)}</code>) for good
          {apiKey.rolledTo ? ', ending its overlap now' : ''}.
          {replacement ? (
            <>
              {' '}
              Its replacement, <code className="font-mono">{maskedKey(replacement)}</code>, keeps working.
            </>
          ) : null}
          {replaced ? (
            <>
              {' '}
              <span data-testid="revoke-replaced-note">
                The key it replaced, <code className="font-mono">{maskedKey(replaced)}</code>, keeps working
                {replaced.expiresAt ? (
                  <>
                    {' '}
                    until <time dateTime={replaced.expiresAt}>{formatDateTime(replaced.expiresAt)}</time>
                  </>
                ) : null}{' '}
                unless you revoke it too.
              </span>
            </>
          ) : null}
        </>
      }
      confirmLabel={both ? 'Revoke both keys' : 'Revoke key'}
      pending={pending}
      onConfirm={() => onConfirm(both)}
      trigger={
        <Button
          variant="secondary"
          data-testid={`revoke-key-${apiKey.id}`}
          disabled={pending}
          aria-label={`Revoke key ${apiKey.name}`}
        >
          {pending ? 'Revoking…' : 'Revoke'}
        </Button>
      }
    >
      {replaced ? (
        <div className="mt-4 flex items-start gap-3">
          <Checkbox
            id={id}
            data-testid="revoke-also-replaced"
            checked={alsoReplaced}
            onCheckedChange={(checked) => setAlsoReplaced(checked === true)}
            aria-describedby={`${id}-hint`}
          />
          <div className="min-w-0">
            <label htmlFor={id} className="text-sm font-medium text-zinc-900">
              Also revoke the key it replaced, <code className="font-mono">{maskedKey(replaced)}</code>, now
            </label>
            <p id={`${id}-hint`} className="text-xs text-zinc-500">
              Calls with either key then get 401. Tick this if the old key may have leaked too.
            </p>
          </div>
        </div>
      ) : null}
    </ConfirmDialog>
  );
}
