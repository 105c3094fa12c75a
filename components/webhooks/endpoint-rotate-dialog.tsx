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
import type { Endpoint } from './webhook-shared';

/**
 * A new signing secret, shown once. The old one keeps signing for the chosen
 * overlap, so a receiver that switches to the new secret at any moment in between verifies every
 * delivery.
 */
export function EndpointRotateDialog({ endpoint, onRotated }: { endpoint: Endpoint; onRotated(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [overlap, setOverlap] = useState<number>(DEFAULT_OVERLAP_SECONDS);
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
      setOverlap(DEFAULT_OVERLAP_SECONDS);
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
          <OverlapField
            label="The current secret keeps working"
            testId="rotate-overlap"
            immediately="Now: stop using it at once"
            value={overlap}
            onChange={setOverlap}
            hints={{
              immediately: 'Deliveries fail verification at your receiver until it has the new secret.',
              overlap: 'Update your receiver within this time; after it, only the new secret signs.',
            }}
          />
          <MutationError mutation={rotate} />
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
