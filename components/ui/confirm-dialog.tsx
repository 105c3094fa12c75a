'use client';

import * as Dialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';
import { Button } from './button';
import { DIALOG_CONTENT_CLASS } from './dialog';

/** A confirmation step for destructive actions (Radix Dialog: focus trap, Escape, labelled). */
export function ConfirmDialog({
  trigger,
  title,
  description,
  confirmLabel,
  onConfirm,
  pending = false,
  onOpenChange,
  children,
}: {
  trigger: ReactNode;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm(): void;
  pending?: boolean;
  onOpenChange?(open: boolean): void;
  /** Choices that go with the action (a checkbox), between the description and the buttons. */
  children?: ReactNode;
}) {
  return (
    <Dialog.Root {...(onOpenChange && { onOpenChange })}>
      <Dialog.Trigger asChild>{trigger}</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-zinc-900/40" />
        <Dialog.Content className={DIALOG_CONTENT_CLASS}>
          <Dialog.Title className="text-lg font-semibold">{title}</Dialog.Title>
          <Dialog.Description className="mt-2 text-sm text-zinc-600">{description}</Dialog.Description>
          {children}
          <div className="mt-6 flex flex-wrap justify-end gap-2">
            <Dialog.Close asChild>
              <Button variant="secondary">Cancel</Button>
            </Dialog.Close>
            <Dialog.Close asChild>
              <Button variant="danger" onClick={onConfirm} disabled={pending}>
                {confirmLabel}
              </Button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
