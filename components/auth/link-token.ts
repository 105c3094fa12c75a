'use client';

import { useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';

/**
 * The token of an emailed link (?token=…), read once; the address bar then shows the page
 * without it, so it is not left in the history or shown over someone's shoulder.
 */
export function useLinkToken(): string {
  const params = useSearchParams();
  const [token] = useState(() => params.get('token') ?? '');
  useEffect(() => {
    if (token) window.history.replaceState(window.history.state, '', window.location.pathname);
  }, [token]);
  return token;
}
