'use client';

import { usePathname } from 'next/navigation';
import { useEffect, useRef } from 'react';

const WAIT_MS = 5_000;

/**
 * After a client-side navigation, focus moves to the new page's main heading
 * (its h1), so a keyboard or screen-reader user starts on the page they opened, not on <body>.
 * A page whose heading comes with its data gets it as soon as it is shown; one with none focuses
 * the main region. The first load and changes of the query string (filters) move nothing.
 */
export function RouteFocus({ mainId = 'main' }: { mainId?: string }) {
  const pathname = usePathname();
  const previous = useRef(pathname);

  useEffect(() => {
    if (previous.current === pathname) return;
    previous.current = pathname;
    const main = document.getElementById(mainId);
    if (!main) return;
    const focusHeading = () => {
      const active = document.activeElement;
      // Someone already moved on inside the page: leave their focus where it is.
      if (active && active !== main && main.contains(active)) return true;
      const heading = main.querySelector<HTMLElement>('h1');
      if (!heading) return false;
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.classList.add('focus:outline-none');
      heading.focus({ preventScroll: true });
      return true;
    };
    if (focusHeading()) return;
    const observer = new MutationObserver(() => {
      if (focusHeading()) stop();
    });
    const timer = setTimeout(() => {
      stop();
      // No heading came: the main region, still past the navigation.
      if (!main.contains(document.activeElement)) main.focus({ preventScroll: true });
    }, WAIT_MS);
    function stop() {
      observer.disconnect();
      clearTimeout(timer);
    }
    observer.observe(main, { childList: true, subtree: true });
    return stop;
  }, [pathname, mainId]);

  return null;
}
