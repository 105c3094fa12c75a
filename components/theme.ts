// Dark mode. It follows the system (prefers-color-scheme) unless a choice is
// stored in localStorage; the class `dark` on <html> is set by a script in the page's <head>,
// before anything is painted, so a dark page never flashes light (app/layout.tsx).

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_STORAGE_KEY = 'theme';

/**
 * The <head> script: applies the stored or the system's theme, and follows the system while the
 * choice is "system". Plain ES5 in a string; it runs before React.
 */
export const THEME_SCRIPT = `(function(){var k=${JSON.stringify(THEME_STORAGE_KEY)},m=window.matchMedia('(prefers-color-scheme: dark)');function a(){var t=null;try{t=localStorage.getItem(k)}catch(e){}if(t!=='light'&&t!=='dark')t='system';var d=t==='dark'||(t==='system'&&m.matches);var r=document.documentElement;r.classList.toggle('dark',d);r.style.colorScheme=d?'dark':'light';r.setAttribute('data-theme',t)}a();window.__applyTheme=a;m.addEventListener('change',a)})();`;

declare global {
  interface Window {
    __applyTheme?: () => void;
  }
}

export function readThemeChoice(): ThemeChoice {
  try {
    const stored = localStorage.getItem(THEME_STORAGE_KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    return 'system';
  }
}

export function storeThemeChoice(choice: ThemeChoice) {
  try {
    if (choice === 'system') localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
  }
  if (window.__applyTheme) window.__applyTheme();
  else {
    const dark =
      choice === 'dark' || (choice === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
    document.documentElement.classList.toggle('dark', dark);
  }
}
