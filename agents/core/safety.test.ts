import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { type BeforeToolCall, createSafetyPolicy, defaultSafetyPolicy, parseShell } from './safety.ts';

const ctx = { root: '/work/repo' };
const bash = (command: string, policy: BeforeToolCall = defaultSafetyPolicy) =>
  policy({ name: 'bash', input: { command } }, ctx);

describe('default safety policy for bash', () => {
  it.each([
    ['rm -rf /', 'recursive rm'],
    ['rm -rf ~', 'recursive rm'],
    ['rm -rf ~/', 'recursive rm'],
    ['rm -rf --no-preserve-root /', 'recursive rm'],
    ['cd x && rm -fr ../', 'recursive rm'],
    ['sudo rm -r -f /*', 'recursive rm'],
    ['rm -rf "$HOME"', 'recursive rm'],
    ['rm -rf .', 'whole working directory'],
    ['rm -rf /usr/lib', 'outside the working root'],
    ['mkfs.ext4 /dev/sda1', 'mkfs'],
    ['sudo mkfs -t ext4 /dev/nvme0n1', 'mkfs'],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'dd'],
    ['dd if=x.img of=/etc/x', 'writing to /etc/x'],
    ['cat image > /dev/sdb', 'disk device'],
    ['shutdown -h now', 'stop the machine'],
    ['echo x; reboot', 'stop the machine'],
    ['systemctl poweroff', 'stop the machine'],
    [':(){ :|:& };:', 'fork bomb'],
    ['bomb() { bomb | bomb & }; bomb', 'fork bomb'],
    ['git push origin main', 'git push'],
    ['git -C repo push', 'git push'],
    ['git push --force origin main', 'git push --force'],
    ['git push -f', 'git push --force'],
    ['git fetch origin', 'network'],
    ['git clone https://github.com/a/b', 'network'],
    ['chmod -R 777 /', 'recursive chmod'],
    ['chown -R me ~', 'recursive chown'],
    ['curl -s http://example.com', 'network'],
    ['ls | xargs wget', 'network'],
    ['/usr/bin/ssh host', 'network'],
    ['scp a host:b', 'network'],
    ['nc -l 8080', 'network'],
    ['timeout 5 curl example.com', 'network'],
    ['env A=1 sudo -u root wget x', 'network'],
    ['echo $(curl -s example.com)', 'network'],
    ['echo "`wget -qO- example.com`"', 'network'],
    ['diff <(curl a) b', 'network'],
    ["bash -c 'curl example.com'", 'network'],
    ['sh -lc "rm -rf /"', 'recursive rm'],
    ['eval "rm -rf ~"', 'recursive rm'],
    ['bash <<EOF\ncurl example.com\nEOF', 'network'],
    ['for f in a b; do wget $f; done', 'network'],
    ['pip install requests', 'pip install'],
    ['pip3 install -U numpy', 'pip3 install'],
    ['python3 -m pip install x', 'pip install'],
    ['npm install left-pad', 'npm install'],
    ['npm i', 'npm i'],
    ['yarn add react', 'yarn add'],
    ['apt-get install -y jq', 'apt-get install'],
    ['echo hacked > /etc/passwd', 'writing to /etc/passwd, outside the working root /work/repo'],
    ['echo x >> ~/.bashrc', 'writing to ~/.bashrc'],
    ['ls 2> /var/log/x', 'writing to /var/log/x'],
    ['echo x | sudo tee -a /etc/hosts', 'writing to /etc/hosts'],
    ['cp agents/x.ts /usr/local/bin/', 'outside the working root'],
    ['mkdir -p /opt/tool', 'outside the working root'],
    ['touch $HOME/x', 'outside the working root'],
    ["sed -i 's/a/b/' /etc/hosts", 'writing to /etc/hosts'],
  ])('denies %s', (command, reason) => {
    const decision = bash(command);
    expect(decision.allow).toBe(false);
    if (!decision.allow) expect(decision.reason).toContain(reason);
  });

  it.each([
    'rm -rf node_modules',
    'rm -rf build',
    'rm -rf ./build',
    'rm -rf ./dist node_modules/.cache',
    'rm -rf .git/hooks/*.sample',
    'rm file.txt',
    'rm -rf /tmp/scratch',
    'rm -rf /work/repo/agents/old',
    'grep curl file',
    'grep -rn "wget\\|curl" agents/',
    'echo "wget"',
    'echo curl is not run here',
    'echo "a; curl x"',
    "echo 'rm -rf /'",
    'git commit -m "push the fix; curl it"',
    'git status && git diff',
    'git log --oneline | head',
    'grep -r "shutdown" src',
    'ls # curl example.com',
    'command -v curl',
    'which wget',
    'man ssh',
    'chmod +x script.sh',
    'chmod -R u+w agents',
    'npx tsc --noEmit -p .',
    'npm test',
    'npm run build',
    'pip list',
    'node --import tsx agents/task/main.ts --check 2>&1 | tail -5',
    'ls > /dev/null 2>&1',
    'echo done >&2',
    'dd if=/dev/zero of=/dev/null bs=1k count=1',
    'dd if=/dev/zero of=out.bin bs=1k count=1',
    'cat /etc/os-release',
    'cp /etc/hosts ./hosts.copy',
    'mkdir -p /tmp/x && echo hi > /tmp/x/y',
    'echo x > /work/repo/notes.txt',
    "sed -i -e '/^#/d' agents/task/prompt.md",
    "sed -n '1,20p' /etc/hosts",
    "cat > notes.md <<'EOF'\nRun `curl example.com` and then rm -rf / is bad.\nEOF",
    'cat <<< "wget"',
    'git clone ../local copy',
    'python3 -c "print(1)"',
  ])('allows %s', (command) => {
    expect(bash(command)).toEqual({ allow: true });
  });
});

describe('default safety policy for the editor', () => {
  it.each([
    ['agents/task/prompt.md', true],
    ['/work/repo/agents/x.ts', true],
    ['.', true],
    ['../other/file', false],
    ['/etc/passwd', false],
    ['agents/../../escape', false],
    ['/work/repository/x', false],
  ])('%s allowed: %s', (path, allowed) => {
    const decision = defaultSafetyPolicy({ name: 'editor', input: { command: 'view', path } }, ctx);
    expect(decision.allow).toBe(allowed);
    if (!decision.allow) expect(decision.reason).toBe(`path ${path} is outside the working root /work/repo`);
  });
});

describe('createSafetyPolicy', () => {
  it('adds deny patterns, optionally per tool', () => {
    const policy = createSafetyPolicy({
      denyPatterns: [{ pattern: /\bdocker\b/, reason: 'no containers', tool: 'bash' }],
    });
    expect(bash('docker run x', policy)).toEqual({ allow: false, reason: 'no containers' });
    expect(policy({ name: 'other', input: { text: 'docker' } }, ctx)).toEqual({ allow: true });
    expect(bash('rm -rf /', policy).allow).toBe(false);
  });

  it('allows network tools and installs with allowNetwork, but still no force push or rm -rf /', () => {
    const policy = createSafetyPolicy({ allowNetwork: true });
    for (const command of [
      'curl -s http://example.com',
      'pip install requests',
      'git push origin main',
      'ssh h',
    ])
      expect(bash(command, policy), command).toEqual({ allow: true });
    expect(bash('git push --force', policy).allow).toBe(false);
    expect(bash('rm -rf /', policy).allow).toBe(false);
  });

  it('lets bash write to configured places outside the root', () => {
    const policy = createSafetyPolicy({ writablePaths: ['/srv/cache'] });
    expect(bash('echo x > /srv/cache/a', policy)).toEqual({ allow: true });
    expect(bash('echo x > /tmp/a', policy).allow).toBe(false);
    expect(bash('echo x > /tmp/a').allow).toBe(true);
  });

  it('lets an override decide first, falling through on undefined', () => {
    const policy = createSafetyPolicy({
      override: (call) => (call.name === 'bash' ? { allow: true } : undefined),
    });
    expect(bash('curl x', policy)).toEqual({ allow: true });
    expect(policy({ name: 'editor', input: { path: '/etc/x' } }, ctx).allow).toBe(false);
  });

  it('resolves ~ to the home directory, so a root inside it is writable through ~', () => {
    const home = homedir();
    const policy = createSafetyPolicy();
    expect(
      policy({ name: 'bash', input: { command: 'echo x > ~/repo/a' } }, { root: `${home}/repo` }),
    ).toEqual({
      allow: true,
    });
  });
});

describe('parseShell', () => {
  it.each([
    ['ls -la', [['ls', '-la']], []],
    ['a && b || c; d | e & f', [['a'], ['b'], ['c'], ['d'], ['e'], ['f']], []],
    ['echo "a; b" \'c | d\' e\\ f', [['echo', 'a; b', 'c | d', 'e f']], []],
    ['echo x > out 2>&1 >> log &> all', [['echo', 'x']], ['out', 'log', 'all']],
    ['cmd 2>/dev/null >&2', [['cmd']], ['/dev/null']],
    ['sort < in.txt', [['sort']], []],
    ['echo $(date) `id`', [['date'], ['id'], ['echo', 'date', 'id']], []],
    ['ls # rm -rf /', [['ls']], []],
    ['a \\\n  b', [['a', 'b']], []],
  ])('%j', (line, words, redirects) => {
    const parsed = parseShell(line);
    expect(parsed.map((c) => c.words)).toEqual(words);
    expect(parsed.flatMap((c) => c.redirects)).toEqual(redirects);
  });

  it('keeps heredoc bodies apart from the commands', () => {
    const parsed = parseShell(
      "cat > a.md <<'EOF'\ncurl x\n\tEOF\nEOF\ncat <<-END\n\tline\n\tEND\necho after",
    );
    expect(parsed.map((c) => c.words)).toEqual([['cat'], ['cat'], ['echo', 'after']]);
    expect(parsed.map((c) => c.heredocs)).toEqual([['curl x\n\tEOF'], ['\tline'], []]);
  });

  it('never throws on unbalanced input', () => {
    for (const line of ['echo "unterminated', "it's", 'echo $(curl', 'a <<', '`', ')))'])
      expect(() => parseShell(line)).not.toThrow();
    expect(bash('echo $(curl').allow).toBe(false);
  });
});
