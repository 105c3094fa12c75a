'use client';

import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { ErrorMessage } from '../ui/card';
import { isRetryable } from '../ui/friendly-error';
import { useToast } from '../ui/toast';

/**
 * An unverified address is told what it misses, with the link sent again on request. An operator
 * address (ADMIN_EMAILS) whose mailbox nobody has proven yet is told the console waits for that.
 */
export function VerificationBanner({ email, reason }: { email: string; reason: 'unverified' | 'operator' }) {
  const trpc = useTRPC();
  const toast = useToast();
  const resend = useMutation(
    trpc.account.resendVerification.mutationOptions({
      onSuccess: ({ sentTo }) => toast(`Verification link sent to ${sentTo}`),
    }),
  );
  return (
    <section
      aria-labelledby="verify-heading"
      data-testid="verify-banner"
      className="rounded-lg bg-amber-50 p-4 ring-1 ring-inset ring-amber-200 sm:p-6"
    >
      <h2 id="verify-heading" className="text-base font-semibold text-amber-950">
        {reason === 'operator'
          ? 'Confirm your address to open the operator console'
          : 'Please verify your email address'}
      </h2>
      {reason === 'operator' ? (
        <p className="mt-2 text-sm text-amber-950">
          <span className="font-medium break-all">{email}</span> is an operator address. The operator console
          opens once you follow a link we email to it: only the owner of the mailbox can be an operator.
        </p>
      ) : (
        <p className="mt-2 text-sm text-amber-950">
          We sent a link to <span className="font-medium break-all">{email}</span> when you signed up. Until
          you open it, we send no webhook notices (such as an endpoint turned inactive) to this address, and
          you cannot ask for early access.
        </p>
      )}
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <Button
          variant="secondary"
          data-testid="resend-verification"
          onClick={() => resend.mutate()}
          disabled={resend.isPending}
        >
          {resend.isPending ? 'Sending…' : reason === 'operator' ? 'Email me a link' : 'Send the link again'}
        </Button>
        {resend.isSuccess ? (
          <p className="text-sm text-amber-950">
            Sent to {resend.data.sentTo}. The link works for 24 hours; earlier links no longer do.
          </p>
        ) : null}
      </div>
      {resend.error ? (
        <div className="mt-3">
          <ErrorMessage
            error={resend.error}
            onRetry={isRetryable(resend.error) ? () => resend.mutate() : undefined}
          />
        </div>
      ) : null}
    </section>
  );
}
