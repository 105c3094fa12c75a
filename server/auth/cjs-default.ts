/**
 * next-auth v4 is CommonJS with `exports.default`: Next's bundler and vitest unwrap it, Node's
 * own ESM loader (the tsx scripts: benchmarks, admin) hands over the whole module object.
 */
export function cjsDefault<T>(m: T | { default: T }): T {
  return typeof m === 'function' ? m : (m as { default: T }).default;
}
