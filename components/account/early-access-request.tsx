'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { ErrorMessage } from '../ui/card';
import { isRetryable } from '../ui/friendly-error';
import { useToast } from '../ui/toast';
import { RelativeTime } from '../ui/relative-time';

/** Asks the operators for early access (once), or says when it was asked for. */
export function EarlyAccessRequest({
  requestedAt,
  emailVerified,
}: {
  requestedAt: string | null;
  emailVerified: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const request = useMutation(
    trpc.account.requestEarlyAccess.mutationOptions({
      onSuccess: () => {
        toast('Early access requested: the operators have been told');
        return queryClient.invalidateQueries({ queryKey: trpc.account.get.queryKey() });
      },
    }),
  );
  if (requestedAt) {
    return (
      <p data-testid="early-access-requested" role="status" className="mt-4 text-sm text-zinc-700">
        You asked for early access <RelativeTime iso={requestedAt} />. The operators have been told; we email
        you when it is granted. Until then /v1 answers 403.
      </p>
    );
  }
  return (
    <div className="mt-4 space-y-3">
      <p className="text-sm text-zinc-600">
        API access is limited to early-access accounts; /v1 answers 403 until then.
        {emailVerified ? null : ' Verify your email address first to ask for it.'}
      </p>
      <Button
        data-testid="request-early-access"
        onClick={() => request.mutate()}
        disabled={!emailVerified || request.isPending}
      >
        {request.isPending ? 'Asking…' : 'Request early access'}
      </Button>
      <ErrorMessage
        error={request.error}
        onRetry={isRetryable(request.error) ? () => request.mutate() : undefined}
      />
    </div>
  );
}
