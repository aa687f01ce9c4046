// Which way imports run between the rooms of docs/architecture.md, checked by dependency-cruiser in
// `npm run check` (`depcruise .`). Type-only imports count: a cycle through types is a cycle.
const { existsSync, readdirSync } = require('node:fs');
const path = require('node:path');

/** The rooms entered only through their face, `<room>/index.ts`. */
const FACED = [
  'agents',
  'archive',
  'llm',
  'domains',
  'queue',
  'harness/run',
  'harness/generation',
  'harness/evaluation',
  'harness/process',
];

/**
 * The shipped domains, as the build finds them (scripts/build-commands.mjs): each folder under domains/ with
 * an index.ts is a room of its own, whose index.ts (its `defineDomain`) is its face.
 */
const DOMAIN_FOLDERS = readdirSync(path.join(__dirname, 'domains'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(path.join(__dirname, 'domains', e.name, 'index.ts')))
  .map((e) => `domains/${e.name}`);

/** Tests, their helpers and the benchmarks. */
const TEST = '^(test|bench)/|[.](test|browser-test)[.]ts$|(^|/)testing/';

/**
 * Past a face, test code may import a room's `testing/` helpers, and a provider's own modules, which
 * `llm/providers/index.ts` loads on a model's first call and so no face may load.
 */
const TEST_REACH = ['(^|/)testing/', '^llm/providers/'];

const esc = (room) => room.replace(/[/]/g, '[/]');

const throughFaces = [...FACED, ...DOMAIN_FOLDERS].flatMap((room) => {
  const inner = [...FACED, ...DOMAIN_FOLDERS]
    .filter((r) => r.startsWith(`${room}/`))
    .map((r) => `^${esc(r)}/`);
  const rule = (name, from, extra) => ({
    name,
    severity: 'error',
    comment: `Outside ${room}/, import ${room}/index.ts (its face), never a file behind it.`,
    from: { pathNot: [`^${esc(room)}/`], ...from },
    to: { path: `^${esc(room)}/`, pathNot: [`^${esc(room)}/index[.]ts$`, ...inner, ...extra] },
  });
  return [
    rule('face', { pathNot: [`^${esc(room)}/`, TEST] }, []),
    rule('face-from-a-test', { path: TEST }, TEST_REACH),
  ];
});

/** What each room may import besides itself, packages and Node built-ins (docs/architecture.md). */
const MAY_IMPORT = {
  system: [],
  llm: ['system'],
  archive: ['system'],
  domains: ['system'],
  harness: ['harness', 'agents', 'llm', 'archive', 'domains', 'system'],
  web: ['archive', 'system'],
  queue: ['harness', 'archive', 'domains', 'system'],
};

const downward = Object.entries(MAY_IMPORT).map(([room, may]) => ({
  name: `${room}-imports`,
  severity: 'error',
  comment:
    may.length === 0
      ? `${room}/ imports nothing of the project.`
      : `${room}/ imports nothing of the project but ${may.map((r) => `${r}/`).join(', ')}.`,
  from: { path: `^${room}/`, pathNot: TEST },
  to: { dependencyTypes: ['local'], pathNot: [`^${room}/`, ...may.map((r) => `^${r}/`)] },
}));

/** The command groups of cli/ (a folder each), and which other group each may import besides shared/. */
const CLI_GROUPS = readdirSync(path.join(__dirname, 'cli'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);
const CLI_CROSSINGS = {
  // generate-loop --queue: the Redis target and its outages; the model chosen when none is named.
  loop: ['queue', 'models'],
  // An experiment prepares each run as generate-loop does.
  experiment: ['loop'],
  // archive verify re-runs a bundled run the way an experiment starts one.
  archive: ['experiment'],
  // report opens runs as archive does; serve packs a run's bundle as archive bundle does.
  serve: ['archive'],
};

const commandGroups = [
  {
    name: 'cli-shared',
    severity: 'error',
    comment: 'cli/shared/ is what several commands use: it imports no command group.',
    from: { path: '^cli/shared/' },
    to: { path: '^cli/', pathNot: '^cli/shared/' },
  },
  {
    name: 'cli-table-on-top',
    severity: 'error',
    comment: "A command group never imports the top of cli/ (the command table and the bins' entries).",
    from: { path: '^cli/[^/]+/' },
    to: { path: '^cli/[^/]+$' },
  },
  ...CLI_GROUPS.filter((group) => group !== 'shared').map((group) => ({
    name: 'cli-groups',
    severity: 'error',
    comment: `cli/${group}/ imports cli/shared/ and ${(CLI_CROSSINGS[group] ?? []).map((g) => `cli/${g}/`).join(', ') || 'no other group'} (see CLI_CROSSINGS).`,
    from: { path: `^cli/${group}/` },
    to: {
      path: '^cli/[^/]+/',
      pathNot: [`^cli/(${[group, 'shared', ...(CLI_CROSSINGS[group] ?? [])].join('|')})/`],
    },
  })),
];

module.exports = {
  forbidden: [
    ...throughFaces,
    ...downward,
    ...commandGroups,
    {
      name: 'agents-alone',
      severity: 'error',
      comment:
        'agents/ is copied into every variant: it imports nothing outside agents/ but zod and Node built-ins.',
      from: { path: '^agents/', pathNot: TEST },
      to: { pathNot: ['^agents/', '(^|/)node_modules/zod/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'harness-rooms-downward',
      severity: 'error',
      comment: 'The harness rooms import downward only: run, then generation, then evaluation, then process.',
      from: { path: '^harness/(generation|evaluation|process)/', pathNot: TEST },
      to: { path: '^harness/run/' },
    },
    {
      name: 'harness-rooms-downward',
      severity: 'error',
      comment: 'The harness rooms import downward only: run, then generation, then evaluation, then process.',
      from: { path: '^harness/(evaluation|process)/', pathNot: TEST },
      to: { path: '^harness/generation/' },
    },
    {
      name: 'harness-rooms-downward',
      severity: 'error',
      comment: 'The harness rooms import downward only: run, then generation, then evaluation, then process.',
      from: { path: '^harness/process/', pathNot: TEST },
      to: { path: '^harness/evaluation/' },
    },
    {
      name: 'commands-on-top',
      severity: 'error',
      comment: 'Nothing imports cli/ but the entry points (bin/, generate-loop.ts), scripts/ and tests.',
      from: { pathNot: ['^(cli|bin|scripts)/', '^generate-loop[.]ts$', TEST] },
      to: { path: '^cli/' },
    },
    {
      name: 'testing-for-tests',
      severity: 'error',
      comment: 'A testing/ helper is for tests and benchmarks, never for the code they test.',
      from: { pathNot: TEST },
      to: { path: '(^|/)testing/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that load each other, directly or through others (type-only imports count).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports and that imports nothing: unused, or a file to name here.',
      // The page's scripts (web/client/) share the browser's globals; vitest reads its configs.
      from: {
        orphan: true,
        pathNot: ['(^|/)[.][^/]+[.](js|cjs|mjs|ts)$', '^web/client/', '^vitest[.][^/]*config[.]ts$'],
      },
      to: {},
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/|(^|/)fixtures/' },
    progress: { type: 'none' },
  },
};
