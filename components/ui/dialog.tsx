'use client';

import * as Dialog from '@radix-ui/react-dialog';
import type { ComponentProps, ReactNode } from 'react';

/**
 * The box every dialog sits in: centred, never wider than the screen less a margin and never
 * taller (it scrolls inside instead), so a phone shows all of it.
 */
export const DIALOG_CONTENT_CLASS =
  'fixed left-1/2 top-1/2 max-h-[calc(100dvh-2rem)] w-[28rem] max-w-[calc(100vw-2rem)] -translate-x-1/2 -translate-y-1/2 overflow-y-auto overscroll-contain rounded-lg bg-white p-4 shadow-xl sm:p-6';

/**
 * A Radix dialog (focus trap, Escape, labelled by its title and described by its description) in
 * the app's frame. `trigger` opens it; pass `open` and `onOpenChange` to open it from elsewhere too.
 */
export function Modal({
  trigger,
  title,
  description,
  children,
  open,
  onOpenChange,
  wide = false,
  ...content
}: {
  trigger?: ReactNode;
  title: ReactNode;
  description: ReactNode;
  children: ReactNode;
  open?: boolean;
  onOpenChange?(open: boolean): void;
  /** 36rem instead of 28rem, for forms. */
  wide?: boolean;
} & Omit<ComponentProps<typeof Dialog.Content>, 'title' | 'children' | 'className'>) {
  return (
    <Dialog.Root {...(open !== undefined && { open })} {...(onOpenChange && { onOpenChange })}>
      {trigger ? <Dialog.Trigger asChild>{trigger}</Dialog.Trigger> : null}
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 bg-zinc-900/40" />
        <Dialog.Content {...content} className={`${DIALOG_CONTENT_CLASS} ${wide ? 'sm:w-[36rem]' : ''}`}>
          <Dialog.Title className="text-lg font-semibold">{title}</Dialog.Title>
          <Dialog.Description asChild>
            <div className="mt-2 space-y-2 text-sm text-zinc-600">{description}</div>
          </Dialog.Description>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** A button that closes the dialog it is in. */
export function ModalClose({ children }: { children: ReactNode }) {
  return <Dialog.Close asChild>{children}</Dialog.Close>;
}
