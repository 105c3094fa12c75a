'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { MutationError } from '../ui/card';
import { ShownOnce } from '../ui/copy-button';
import { Modal, ModalClose } from '../ui/dialog';
import { formatDateTime } from '../ui/relative-time';
import { DEFAULT_OVERLAP_SECONDS, OverlapField } from '../ui/overlap-field';
import { useToast } from '../ui/toast';
import { type ApiKey, maskedKey } from './api-key';

interface Rolled {
  plaintext: string;
  /** When the old key stops; null when it stopped at once. */
  oldUntil: string | null;
  /** When the new key expires: the old key's expiry, kept by the roll; null for never. */
  expiresAt: string | null;
}

/**
 * As Stripe's "Roll key": a new key with the same name, form and expiry, shown
 * once, while the old one keeps working for the chosen overlap, so the new key can be deployed before
 * the old one answers 401. The list mounts one of these afresh each time a Roll button is
 * pressed, outside the rows, so the new key stays on screen even when the old key leaves the
 * list (no overlap).
 */
export function RollKeyDialog({
  apiKey,
  open,
  onOpenChange,
  onCloseAutoFocus,
}: {
  /** The key as it was when the dialog was opened. */
  apiKey: ApiKey;
  open: boolean;
  onOpenChange(open: boolean): void;
  /** The dialog has no trigger of its own: the list says where the focus goes back to. */
  onCloseAutoFocus(event: Event): void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [overlap, setOverlap] = useState<number>(DEFAULT_OVERLAP_SECONDS);
  // The new key lives only here, while the dialog is open: closing it forgets the plaintext.
  const [rolled, setRolled] = useState<Rolled | null>(null);

  const roll = useMutation(
    trpc.keys.roll.mutationOptions({
      onSuccess: ({ key, plaintext, previous }, { overlapSeconds }) => {
        setRolled({
          plaintext,
          oldUntil: overlapSeconds === 0 ? null : previous.expiresAt,
          expiresAt: key.expiresAt,
        });
        toast(
          key.expiresAt
            ? `Key “${key.name}” rolled; the new key expires ${formatDateTime(key.expiresAt)}`
            : `Key “${key.name}” rolled`,
        );
        // Not awaited: closing is refused while the mutation is pending, which lasts until
        // onSuccess settles; awaiting the refetch would hold the dialog open for it.
        void queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
      },
    }),
  );

  function changeOpen(next: boolean) {
    // Closing while the roll is under way would lose the key it answers with.
    if (!next && roll.isPending) return;
    onOpenChange(next);
  }

  return (
    <Modal
      open={open}
      onOpenChange={changeOpen}
      title={rolled ? 'Your new API key' : `Roll key “${apiKey.name}”`}
      description={
        rolled ? (
          <p>Put this key where your code reads it, in place of the old one.</p>
        ) : (
          <>
            <p>
              A new key replaces <code className="font-mono text-xs">{maskedKey(apiKey)}</code>, with the same
              name and form. Choose how long the old key keeps working, so you can deploy the new one first.
              After that it answers 401.
            </p>
            {apiKey.expiresAt ? (
              <p data-testid="roll-expiry">
                Rolling keeps the expiry: the new key expires{' '}
                <time dateTime={apiKey.expiresAt}>{formatDateTime(apiKey.expiresAt)}</time>, when the old one
                would have, and the old key stops then at the latest. For a key that lasts longer, create a
                new one.
              </p>
            ) : null}
          </>
        )
      }
      data-testid="roll-key-dialog"
      // A click beside the dialog must not throw away a key that is shown only once.
      onInteractOutside={(e) => {
        if (rolled) e.preventDefault();
      }}
      onCloseAutoFocus={onCloseAutoFocus}
    >
      {rolled ? (
        <div className="mt-4 space-y-4">
          <div data-testid="rolled-key">
            <ShownOnce label="New API key" value={rolled.plaintext} />
          </div>
          {rolled.expiresAt ? (
            <p data-testid="rolled-new-expiry" className="text-sm text-zinc-600">
              The new key expires <time dateTime={rolled.expiresAt}>{formatDateTime(rolled.expiresAt)}</time>,
              when the old one would have.
            </p>
          ) : null}
          <p data-testid="rolled-old-key" className="text-sm text-zinc-600">
            {rolled.oldUntil ? (
              <>
                The old key <code className="font-mono text-xs">{maskedKey(apiKey)}</code> keeps working until{' '}
                <time dateTime={rolled.oldUntil}>{formatDateTime(rolled.oldUntil)}</time>: switch to the new
                key before then.
              </>
            ) : (
              <>
                The old key <code className="font-mono text-xs">{maskedKey(apiKey)}</code> has stopped
                working: calls with it now get 401.
              </>
            )}
          </p>
          <div className="flex justify-end">
            <ModalClose>
              <Button>I have stored it</Button>
            </ModalClose>
          </div>
        </div>
      ) : (
        <div className="mt-4 space-y-4">
          <OverlapField
            label="The old key keeps working"
            testId="roll-overlap"
            immediately="Immediately: it stops now"
            value={overlap}
            onChange={setOverlap}
            hints={{
              immediately: 'Calls with the old key fail from now on, until your code has the new key.',
              overlap: 'Both keys work during this time; then only the new one does.',
            }}
          />
          <MutationError mutation={roll} />
          <div className="flex flex-wrap justify-end gap-2">
            <ModalClose>
              <Button variant="secondary">Cancel</Button>
            </ModalClose>
            <Button
              data-testid="confirm-roll"
              disabled={roll.isPending}
              onClick={() => roll.mutate({ id: apiKey.id, overlapSeconds: overlap })}
            >
              {roll.isPending ? 'Rolling…' : 'Roll key'}
            </Button>
          </div>
        </div>
      )}
    </Modal>
  );
}
