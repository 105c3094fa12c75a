'use client';

import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';

// Every mutation is confirmed by a toast. The live region is always in the page
// (role=status, aria-live=polite), so a screen reader announces what is added to it; the toasts
// live above the pages (components/providers.tsx), so one survives the navigation that follows a
// delete.

type Tone = 'success' | 'error';
interface Toast {
  id: number;
  message: string;
  tone: Tone;
}

const SHOWN_MS = 6_000;

const ToastContext = createContext<(message: string, tone?: Tone) => void>(() => {});

/** `toast('Key revoked')`: a short confirmation, gone after a few seconds or when dismissed. */
export const useToast = () => useContext(ToastContext);

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(0);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());

  const dismiss = useCallback((id: number) => {
    clearTimeout(timers.current.get(id));
    timers.current.delete(id);
    setToasts((all) => all.filter((t) => t.id !== id));
  }, []);

  const show = useCallback(
    (message: string, tone: Tone = 'success') => {
      const id = ++next.current;
      setToasts((all) => [...all.slice(-2), { id, message, tone }]);
      timers.current.set(
        id,
        setTimeout(() => dismiss(id), SHOWN_MS),
      );
    },
    [dismiss],
  );

  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending.values()) clearTimeout(timer);
    };
  }, []);

  return (
    <ToastContext.Provider value={show}>
      {children}
      <div
        role="status"
        aria-live="polite"
        aria-label="Notifications"
        data-testid="toasts"
        className="pointer-events-none fixed inset-x-0 bottom-4 z-50 flex flex-col items-center gap-2 px-4 sm:inset-x-auto sm:right-4 sm:items-end"
      >
        {toasts.map((t) => (
          <div
            key={t.id}
            data-testid="toast"
            data-tone={t.tone}
            className={`pointer-events-auto flex max-w-sm items-start gap-3 rounded-md px-4 py-3 text-sm shadow-lg ring-1 ${
              t.tone === 'error'
                ? 'bg-red-50 text-red-800 ring-red-200'
                : // In dark mode the palette is turned around (app/globals.css): zinc-100 is dark there.
                  'bg-zinc-900 text-white ring-zinc-900 dark:bg-zinc-100 dark:text-zinc-900 dark:ring-zinc-700'
            }`}
          >
            <p className="min-w-0 flex-1">{t.message}</p>
            <button
              type="button"
              onClick={() => dismiss(t.id)}
              className="-my-1 rounded px-1 text-current opacity-80 hover:opacity-100"
              aria-label="Dismiss notification"
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
