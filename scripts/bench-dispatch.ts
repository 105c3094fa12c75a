// npm run bench:dispatch [-- --rounds 7 --builds 500]
// What trpc-to-openapi's fetch adapter would add to every /v1 request. Its
// `createOpenApiFetchHandler` (3.3.0, adapters/fetch.ts) builds a Node handler for the router on
// each call, and building one walks and validates the whole router; server/http/openapi-dispatch.ts
// builds one per form at start and reuses it. This times that build for each form's router, in
// this process, with no server or database: --rounds rounds of --builds builds after a warm-up,
// and prints the median and the spread of the rounds in microseconds per build (CPU on one core,
// the process otherwise idle). Compare with the Node CPU a whole request costs in
// docs/performance.md#the-v1-layer-over-a-bare-route.
import { parseArgs } from 'node:util';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { FORMS } from '../server/rest/forms';
import { percentile } from './bench-stats';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '7' }, builds: { type: 'string', default: '500' } },
});
const rounds = Number(values.rounds);
const builds = Number(values.builds);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(builds) || builds < 1) {
  throw new Error('--rounds and --builds take whole numbers of at least 1');
}

const build = (router: unknown) => createOpenApiNodeHttpHandler({ router } as never);

for (const form of Object.values(FORMS)) {
  for (let i = 0; i < Math.min(builds, 100); i++) build(form.router);
  const perBuild: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < builds; i++) build(form.router);
    perBuild.push(Number(process.hrtime.bigint() - started) / 1000 / builds);
  }
  const us = (n: number) => `${n.toFixed(0)} µs`;
  console.log(
    `Form ${form.name}: building the router's handler takes ${us(percentile(perBuild, 50))} ` +
      `(rounds ${us(Math.min(...perBuild))}–${us(Math.max(...perBuild))}); built once here, ` +
      'on every request through the fetch adapter',
  );
}
