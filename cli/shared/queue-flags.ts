import { UsageError } from './usage-error.ts';

/** The scale-out options of generate-loop, taken out of its command line before the run's own options. */
export interface QueueFlags {
  /** `--queue redis://...`: run as a coordinator; null runs everything on this machine. */
  queue: string | null;
  /** `--gateway-listen HOST:PORT`: where the gateway also listens for workers (default 127.0.0.1, any port). */
  gatewayListen: { host: string; port: number };
  /** `--gateway-url URL`: the gateway as workers reach it, when that is not the listening address. */
  gatewayUrl: string | null;
  /** `--remote-generations`: each MetaAgent run goes to a worker too. */
  remoteGenerations: boolean;
  rest: string[];
}

export const QUEUE_HELP = `Scale-out (see docs/scale-out.md):
  --queue redis://HOST:PORT[/DB]
                     run as a coordinator: tasks go to "hyperagents worker"
                     processes
  --gateway-listen HOST:PORT
                     where the gateway also listens for workers (default
                     127.0.0.1:0, any port)
  --gateway-url http://HOST:PORT
                     the gateway as workers reach it (default: the listening
                     address)
  --remote-generations
                     each generation's MetaAgent runs on a worker too (its edit
                     comes back as a diff, committed here); without it the
                     MetaAgent runs here`;

const NAMES = ['queue', 'gateway-listen', 'gateway-url'] as const;

/** Pure: splits `--name value` and `--name=value` forms of the queue flags from the rest. */
export function takeQueueFlags(argv: readonly string[]): QueueFlags {
  const found = new Map<string, string>();
  const rest: string[] = [];
  let remoteGenerations = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--remote-generations') {
      remoteGenerations = true;
      continue;
    }
    if (word.startsWith('--remote-generations=')) {
      throw new UsageError(
        '--remote-generations takes no value: write it alone, after --queue redis://HOST:PORT.',
      );
    }
    const name = NAMES.find((n) => word === `--${n}` || word.startsWith(`--${n}=`));
    if (name === undefined) {
      rest.push(word);
      continue;
    }
    const value = word.includes('=') ? word.slice(word.indexOf('=') + 1) : argv[++i];
    if (value === undefined || value === '' || value.startsWith('--')) {
      throw new UsageError(`--${name} needs a value. Run generate-loop --help for the options.`);
    }
    found.set(name, value);
  }
  const listen = found.get('gateway-listen');
  const gatewayUrl = found.get('gateway-url') ?? null;
  if (found.get('queue') === undefined && (listen !== undefined || gatewayUrl !== null)) {
    throw new UsageError(
      `--${listen !== undefined ? 'gateway-listen' : 'gateway-url'} is for a coordinator: add --queue redis://HOST:PORT, or drop it.`,
    );
  }
  if (found.get('queue') === undefined && remoteGenerations) {
    throw new UsageError(
      "--remote-generations sends each generation's MetaAgent run to queue workers, so it needs a queue: add " +
        '--queue redis://HOST:PORT (and start workers with hyperagents worker --queue ...), or drop ' +
        '--remote-generations to run the MetaAgent on this machine.',
    );
  }
  if (gatewayUrl !== null && !/^http:\/\/[^/\s]+:\d+\/?$/.test(gatewayUrl)) {
    throw new UsageError(`--gateway-url must look like http://HOST:PORT, not "${gatewayUrl}".`);
  }
  return {
    queue: found.get('queue') ?? null,
    gatewayListen: listen === undefined ? { host: '127.0.0.1', port: 0 } : hostPort(listen),
    gatewayUrl: gatewayUrl?.replace(/\/$/, '') ?? null,
    remoteGenerations,
    rest,
  };
}

function hostPort(text: string): { host: string; port: number } {
  const match = /^(.+):(\d+)$/.exec(text);
  const port = match === null ? Number.NaN : Number(match[2]);
  if (match === null || !(port >= 0 && port <= 65535)) {
    throw new UsageError(`--gateway-listen must be HOST:PORT (for example 0.0.0.0:8750), not "${text}".`);
  }
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
}
