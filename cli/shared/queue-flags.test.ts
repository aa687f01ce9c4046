import { describe, expect, it } from 'vitest';
import { takeQueueFlags } from './queue-flags.ts';

describe('takeQueueFlags', () => {
  it('leaves a command line without queue flags as it is', () => {
    expect(takeQueueFlags(['--domains', 'arithmetic', '--seed', '3'])).toEqual({
      queue: null,
      gatewayListen: { host: '127.0.0.1', port: 0 },
      gatewayUrl: null,
      remoteGenerations: false,
      rest: ['--domains', 'arithmetic', '--seed', '3'],
    });
  });

  it.each([
    [['--queue', 'redis://q:6379', '--seed', '1'], 'redis://q:6379', ['--seed', '1']],
    [['--queue=redis://q:6379/2'], 'redis://q:6379/2', []],
  ])('takes --queue out of %j', (argv, queue, rest) => {
    const flags = takeQueueFlags(argv);
    expect(flags.queue).toBe(queue);
    expect(flags.rest).toEqual(rest);
  });

  it('reads the gateway address for workers', () => {
    const flags = takeQueueFlags([
      '--queue',
      'redis://q',
      '--gateway-listen',
      '0.0.0.0:8750',
      '--gateway-url=http://coord.lan:8750/',
    ]);
    expect(flags.gatewayListen).toEqual({ host: '0.0.0.0', port: 8750 });
    expect(flags.gatewayUrl).toBe('http://coord.lan:8750');
  });

  it('takes --remote-generations with --queue', () => {
    const flags = takeQueueFlags(['--remote-generations', '--queue', 'redis://q', '--seed', '1']);
    expect(flags.remoteGenerations).toBe(true);
    expect(flags.rest).toEqual(['--seed', '1']);
  });

  it.each([
    [['--queue'], '--queue needs a value'],
    [['--queue', '--seed', '1'], '--queue needs a value'],
    [['--gateway-listen', '0.0.0.0:1'], 'is for a coordinator'],
    [['--queue', 'redis://q', '--gateway-listen', '8750'], 'HOST:PORT'],
    [['--queue', 'redis://q', '--gateway-url', 'coord:8750'], 'http://HOST:PORT'],
    [['--remote-generations', '--seed', '1'], '--remote-generations sends'],
    [['--queue', 'redis://q', '--remote-generations=yes'], '--remote-generations takes no value'],
  ])('refuses %j', (argv, words) => {
    expect(() => takeQueueFlags(argv)).toThrow(words);
  });
});
