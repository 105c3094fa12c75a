'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTRPC } from '../trpc';
import { Button } from '../ui/button';
import { Modal, ModalClose } from '../ui/dialog';
import { TextField } from '../ui/field';
import { friendlyMessage } from '../ui/friendly-error';
import { useToast } from '../ui/toast';
import { type ApiKey, maskedKey } from './api-key';

/** A new name for a key; the key itself, its usage and its expiry stay. */
export function RenameKeyDialog({ apiKey }: { apiKey: ApiKey }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(apiKey.name);

  const rename = useMutation(
    trpc.keys.rename.mutationOptions({
      onSuccess: async (renamed) => {
        toast(`Key renamed to “${renamed.name}”`);
        setOpen(false);
        queryClient.setQueryData(trpc.keys.list.queryKey(), (old) =>
          old?.map((k) => (k.id === renamed.id ? { ...k, name: renamed.name } : k)),
        );
        await queryClient.invalidateQueries({ queryKey: trpc.keys.list.queryKey() });
      },
    }),
  );

  /** Opening starts from the key's name as it is now, not from an earlier, abandoned edit. */
  function onOpenChange(next: boolean) {
    if (next) {
      setName(apiKey.name);
      rename.reset();
    }
    setOpen(next);
  }

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    rename.mutate({ id: apiKey.id, name: name.trim() });
  }

  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      trigger={
        <Button
          variant="secondary"
          data-testid={`rename-key-${apiKey.id}`}
          aria-label={`Rename key ${apiKey.name}`}
        >
          Rename
        </Button>
      }
      title="Rename key"
      description={
        <p>
          A new name for <code className="font-mono text-xs">{maskedKey(apiKey)}</code>. The key itself does
          not change: code that uses it keeps working.
        </p>
      }
    >
      <form onSubmit={onSubmit} className="mt-4 space-y-4" data-testid="rename-key-form">
        <TextField
          label="Key name"
          name="name"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            if (rename.error) rename.reset();
          }}
          required
          maxLength={100}
          autoComplete="off"
          error={rename.error ? friendlyMessage(rename.error) : null}
        />
        <div className="flex flex-wrap justify-end gap-2">
          <ModalClose>
            <Button variant="secondary">Cancel</Button>
          </ModalClose>
          <Button type="submit" disabled={rename.isPending}>
            {rename.isPending ? 'Saving…' : 'Save name'}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
