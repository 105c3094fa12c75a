'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { ErrorMessage } from '../ui/card';
import { isRetryable } from '../ui/friendly-error';
import { ShownOnce } from '../ui/copy-button';
import { Modal, ModalClose } from '../ui/dialog';
import { SelectField } from '../ui/field';
import { formatDateTime } from '../ui/relative-time';
import type { Endpoint } from './webhook-shared';

const HOUR = 3600;
/** How long the old secret keeps signing beside the new one; the server allows 0 to 7 days. */
const OVERLAPS = [
  { seconds: 0, label: 'Now: stop using it at once' },
  { seconds: HOUR, label: '1 hour' },
  { seconds: 24 * HOUR, label: '24 hours (recommended)' },
  { seconds: 7 * 24 * HOUR, label: '7 days' },
] as const;
const DEFAULT_OVERLAP = 24 * HOUR;

/**
 * Issue 12 item 3: a new signing secret, shown once. The old one keeps signing for the chosen
 * overlap, so a receiver that switches to the new secret at any moment in between verifies every
 * delivery.
 */
export function EndpointRotateDialog({ endpoint, onRotated }: { endpoint: Endpoint; onRotated(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const hintId = useId();
  const [open, setOpen] = useState(false);
  const [overlap, setOverlap] = useState<number>(DEFAULT_OVERLAP);
  // The new secret lives only here, while the dialog is open: closing it forgets the secret.
  const [rotated, setRotated] = useState<{ secret: string; oldUntil: string | null } | null>(null);

  const rotate = useMutation(
    trpc.webhooks.rotateSecret.mutationOptions({
      onSuccess: ({ endpoint: updated, secret }) => {
        setRotated({ secret, oldUntil: updated.previousSecretExpiresAt });
        queryClient.setQueryData(trpc.webhooks.get.queryKey({ id: endpoint.id }), (current) =>
          current ? { ...current, ...updated } : current,
        );
        onRotated();
        // Not awaited: closing is refused while the mutation is pending, which lasts until
        // onSuccess settles; awaiting the refetch would make "I have saved the secret" do nothing.
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id: endpoint.id }) });
      },
    }),
  );

  function onOpenChange(next: boolean) {
    // Closing while the rotation is under way would lose the secret it answers with.
    if (!next && rotate.isPending) return;
    if (next) {
      setOverlap(DEFAULT_OVERLAP);
      rotate.reset();
    }
    setRotated(null);
    setOpen(next);
  }

  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      trigger={
        <Button variant="secondary" data-testid="rotate-secret">
          Rotate secret
        </Button>
      }
      title={rotated ? 'New signing secret' : 'Rotate the signing secret'}
      description={
        rotated ? (
          <p>Put this secret in your receiver&apos;s configuration.</p>
        ) : (
          <>
            <p>
              A new secret replaces the current one. Choose how long the current secret keeps working: during
              that overlap every delivery carries two signatures, one made with each secret, so your receiver
              verifies deliveries whether it uses the old secret or the new one.
            </p>
            {endpoint.previousSecretExpiresAt ? (
              <p>
                An earlier secret is still valid until{' '}
                <time dateTime={endpoint.previousSecretExpiresAt}>
                  {formatDateTime(endpoint.previousSecretExpiresAt)}
                </time>
                . Rotating again ends that overlap: only the current secret keeps working beside the new one.
              </p>
            ) : null}
          </>
        )
      }
      // A click beside the dialog must not throw away a secret that is shown only once.
      onInteractOutside={(e) => {
        if (rotated) e.preventDefault();
      }}
    >
      {rotated ? (
        <div className="mt-4 space-y-4">
          <div data-testid="rotated-secret">
            <ShownOnce label="New signing secret" value={rotated.secret} />
          </div>
          <p className="text-sm text-zinc-600">
            {rotated.oldUntil ? (
              <>
                The old secret keeps working until{' '}
                <time dateTime={rotated.oldUntil}>{formatDateTime(rotated.oldUntil)}</time>: update your
                receiver before then.
              </>
            ) : (
              <>The old secret no longer works: deliveries are signed with the new one only.</>
            )}
          </p>
          <div className="flex justify-end">
            <ModalClose>
              <Button>I have saved the secret</Button>
            </ModalClose>
          </div>
        </div>
      ) : (
        <div className="mt-4 space-y-4">
          <div>
            <SelectField
              label="The current secret keeps working"
              data-testid="rotate-overlap"
              value={String(overlap)}
              onChange={(e) => setOverlap(Number(e.target.value))}
              aria-describedby={hintId}
            >
              {OVERLAPS.map((o) => (
                <option key={o.seconds} value={String(o.seconds)}>
                  {o.label}
                </option>
              ))}
            </SelectField>
            <p id={hintId} className={`mt-1 text-xs ${overlap === 0 ? 'text-red-700' : 'text-zinc-500'}`}>
              {overlap === 0
                ? 'Deliveries fail verification at your receiver until it has the new secret.'
                : 'Update your receiver within this time; after it, only the new secret signs.'}
            </p>
          </div>
          <ErrorMessage
            error={rotate.error}
            onRetry={
              isRetryable(rotate.error)
                ? () => rotate.variables && rotate.mutate(rotate.variables)
                : undefined
            }
            retrying={rotate.isPending}
          />
          <div className="flex flex-wrap justify-end gap-2">
            <ModalClose>
              <Button variant="secondary">Cancel</Button>
            </ModalClose>
            <Button
              data-testid="confirm-rotate"
              disabled={rotate.isPending}
              onClick={() => rotate.mutate({ id: endpoint.id, overlapSeconds: overlap })}
            >
              {rotate.isPending ? 'Rotating…' : 'Rotate secret'}
            </Button>
          </div>
        </div>
      )}
    </Modal>
  );
}
