// The page of one variant, and the comparison of two variants of a run.

{
  const HA = window.HA;
  const { h, runPath, variantPath, crumbs } = HA;

  /** How a diff is laid out: `line` (one column) or `side` (side by side); in the address as ?diff=. */
  const diffLayout = () => (HA.queryParams().get('diff') === 'side' ? 'side' : 'line');

  /**
   * The diff, its code highlighted by file type (TypeScript, JavaScript, JSON, Markdown, Python, shell; other
   * files stay plain). diff2html escapes the patch text it renders, and highlights the text of each line.
   */
  const diffView = (patch) => {
    const box = h('div', { class: 'diff', id: 'diff' });
    if (patch === '') {
      box.appendChild(h('p', {}, 'No change.'));
      return box;
    }
    const ui = new Diff2HtmlUI(
      box,
      patch,
      {
        drawFileList: true,
        fileListToggle: false,
        fileContentToggle: false,
        synchronisedScroll: true,
        highlight: true,
        outputFormat: diffLayout() === 'side' ? 'side-by-side' : 'line-by-line',
        matching: 'lines',
      },
      window.hljs,
    );
    ui.draw();
    return box;
  };

  /** The diff against another variant (its parent first), and the link comparing their tasks. */
  const changePanel = (runId, v, others) => {
    const diffBox = h('div', {}, h('p', { class: 'muted' }, 'Loading the diff…'));
    let shown = null;
    const showDiff = async (from) => {
      shown = from;
      try {
        const fromVariant = others.find((o) => o.id === from);
        if (from === null || !v.commit) {
          HA.fill(
            diffBox,
            h(
              'p',
              {},
              v.commit
                ? 'The initial agent: nothing to diff against.'
                : 'This variant has no commit: its change was never recorded.',
            ),
          );
          return;
        }
        const { patch } = await HA.get(`${runPath(runId)}/diff/${from}/${v.id}`);
        HA.fill(
          diffBox,
          h(
            'p',
            { class: 'muted' },
            `Against variant ${from}${fromVariant ? ` (${fromVariant.outcome})` : ''}:`,
          ),
          diffView(patch),
        );
      } catch (error) {
        HA.fill(diffBox, h('p', { class: 'error' }, error.message));
      }
    };
    const rest = others.filter((o) => o.id !== v.id);
    const picker = h(
      'select',
      {
        id: 'diff-against',
        onchange: (e) => {
          const from = Number(e.target.value);
          HA.setQuery('against', from === v.parent ? null : from);
          showDiff(from);
        },
      },
      rest.map((o) =>
        h(
          'option',
          { value: o.id, selected: o.id === v.parent ? 'selected' : null },
          `variant ${o.id} (${o.outcome}, ${HA.score(o.score)})${o.id === v.parent ? ' — parent' : ''}`,
        ),
      ),
    );
    const layoutPick = h(
      'select',
      {
        id: 'diff-layout',
        'aria-label': 'diff layout',
        onchange: (e) => {
          HA.setQuery('diff', e.target.value === 'side' ? 'side' : null);
          showDiff(shown);
        },
      },
      h('option', { value: 'line', selected: diffLayout() === 'line' ? 'selected' : null }, 'line by line'),
      h('option', { value: 'side', selected: diffLayout() === 'side' ? 'selected' : null }, 'side by side'),
    );
    // The variant the address names (?against=), if it is one of this run's; else the parent.
    const asked = Number(HA.queryParams().get('against'));
    const against = rest.some((o) => o.id === asked) ? asked : v.parent;
    picker.value = against === null ? picker.value : String(against);
    const comparePick = h(
      'select',
      { id: 'compare-with' },
      rest.map((o) =>
        h('option', { value: o.id, selected: o.id === v.parent ? 'selected' : null }, `variant ${o.id}`),
      ),
    );
    const compareLink = h('a', { class: 'button', href: '#' }, 'Compare tasks');
    const setCompare = () =>
      compareLink.setAttribute('href', HA.href(`${runPath(runId)}/compare/${v.id}/${comparePick.value}`));
    comparePick.addEventListener('change', setCompare);
    setCompare();
    const panel = HA.section(
      'Change',
      h('p', {}, 'Diff against ', picker, ' ', layoutPick, ' · ', comparePick, ' ', compareLink),
      diffBox,
    );
    return { panel, showDiff, against };
  };

  /** The variant's score per domain and split. */
  const scoreTable = (v) => {
    const rows = [];
    for (const [domain, splits] of Object.entries(v.scores))
      for (const [split, s] of Object.entries(splits))
        rows.push([
          domain,
          split,
          s.stage,
          HA.score(s.score),
          String(s.correct),
          String(s.wrong),
          String(s.parseFailures),
          String(s.errors),
          `${s.nTasks}/${s.nTotal}`,
        ]);
    return rows.length === 0
      ? h('p', {}, 'Not evaluated.')
      : HA.table(
          ['domain', 'split', 'stage', 'score', 'correct', 'wrong', 'parse failures', 'errors', 'tasks'],
          rows,
          { id: 'scores' },
        );
  };

  const TASK_COLUMNS = [
    'domain',
    'split',
    'task',
    'input',
    'prediction',
    'expected',
    'correct',
    'failure',
    'latency',
    'cost',
  ];

  /** A workspace task's stored prediction is the diff of its files (JSON text); null for other tasks. */
  const workspaceDiff = (prediction) => {
    if (prediction === null) return null;
    try {
      const value = JSON.parse(prediction);
      return typeof value === 'string' && (value === '' || value.startsWith('--- ')) ? value : null;
    } catch {
      return null;
    }
  };

  /** The prediction cell: a workspace task's diff and the test output its grader saw, each folded. */
  const predictionCell = (t) => {
    const diff = workspaceDiff(t.prediction);
    if (t.outcome === 'parse_failure' && t.rawOutput)
      return h(
        'div',
        { class: 'cell-text' },
        t.prediction === null ? '–' : t.prediction,
        h(
          'details',
          { class: 'raw-output', open: 'open' },
          h('summary', {}, 'raw output (no answer could be read from it)'),
          h('pre', {}, t.rawOutput),
        ),
      );
    if (diff === null && (t.log === null || t.log === undefined))
      return h('div', { class: 'cell-text' }, t.prediction === null ? '–' : t.prediction);
    return h(
      'div',
      { class: 'cell-text workspace-result' },
      diff === null
        ? h('p', { class: 'muted' }, 'no workspace collected')
        : h(
            'details',
            { class: 'workspace-diff' },
            h('summary', {}, diff === '' ? 'diff: no change' : 'diff'),
            h('pre', {}, diff),
          ),
      t.detail ? h('p', { class: 'muted' }, t.detail) : null,
      t.log === null || t.log === undefined
        ? null
        : h('details', { class: 'test-output' }, h('summary', {}, 'test output'), h('pre', {}, t.log)),
    );
  };

  const taskRow = (t) => [
    t.domain,
    t.split,
    t.taskId,
    h('div', { class: 'cell-text' }, HA.inputText(t.input)),
    predictionCell(t),
    h('div', { class: 'cell-text' }, t.split === 'test' ? 'hidden (test split)' : HA.text(t.expected)),
    t.outcome === 'correct' ? '✓' : '✗',
    t.outcome === 'parse_failure' ? 'parse failure' : t.outcome === 'error' ? `error: ${t.error || ''}` : '',
    t.latencyMs === null ? '–' : `${t.latencyMs} ms`,
    HA.usd(t.costUsd),
  ];

  /** The variant's task results, with a switch to show only the tasks it did not solve. */
  const tasksPanel = (tasks) => {
    const failedOnly = h('input', { type: 'checkbox', id: 'failed-only' });
    const tasksBox = h('div', {});
    const drawTasks = () => {
      const rows = tasks.filter((t) => !failedOnly.checked || t.outcome !== 'correct').map(taskRow);
      HA.fill(
        tasksBox,
        h('p', { class: 'muted' }, `${rows.length} task(s)`),
        h('div', { class: 'scroll' }, HA.table(TASK_COLUMNS, rows, { id: 'tasks' })),
      );
    };
    failedOnly.addEventListener('change', drawTasks);
    drawTasks();
    return HA.section('Tasks', h('label', {}, failedOnly, ' only tasks it did not solve'), tasksBox);
  };

  /** The MetaAgent's transcript, every message as text; when it left none, its log (every step it took). */
  const transcriptView = (t, v, logs, hasMetaLog) =>
    t === null
      ? v.parent === null
        ? h('p', { class: 'muted' }, 'The initial agent was not made by a MetaAgent.')
        : h(
            'div',
            { id: 'transcript' },
            logs.meta
              ? [
                  h('p', {}, `The MetaAgent left no transcript; its log holds every step it took:`),
                  logs.meta.inline(),
                ]
              : h(
                  'p',
                  { class: 'muted' },
                  hasMetaLog
                    ? 'The MetaAgent left no transcript; its log (meta-agent.log) holds every step it took: run hyperagents serve to read it.'
                    : 'The MetaAgent left no transcript and no log.',
                ),
          )
      : h(
          'div',
          { id: 'transcript' },
          h('p', {}, `Status ${t.status}, ${t.toolCalls ?? '?'} tool calls, ${t.messages.length} messages.`),
          t.messages.map((m) => {
            const tools = m.toolCalls && m.toolCalls.length > 0 ? m.toolCalls : null;
            return h(
              'details',
              { class: `msg msg-${m.role}`, open: m.role === 'assistant' ? 'open' : null },
              h('summary', {}, m.role, tools ? ` → ${tools.map((c) => c.name).join(', ')}` : ''),
              h('pre', {}, m.content),
              tools ? h('pre', { class: 'tool-calls' }, JSON.stringify(tools, null, 2)) : null,
            );
          }),
        );

  /** What the MetaAgent did: how it ended, its tool and model calls, the files it changed, its own account. */
  const metaPanel = (m) => {
    if (m === null) return h('p', { class: 'muted' }, 'The initial agent was not made by a MetaAgent.');
    const calls =
      m.toolCalls === null
        ? 'its tool calls are not known'
        : `${m.toolCalls} tool call(s)${m.toolCallsFrom === 'log' ? ' (counted in its log)' : ''}`;
    const files = m.changedFiles.length === 0 ? 'no file changed' : `changed ${m.changedFiles.join(', ')}`;
    return h(
      'div',
      { id: 'meta-agent' },
      h('p', { id: 'meta-ended' }, `It ${m.ended}: ${calls}, ${m.modelCalls} model call(s), ${files}.`),
      m.finished
        ? h('pre', { class: 'summary', id: 'summary' }, m.summary || '–')
        : [
            h('p', { class: 'muted' }, 'It did not finish, so it wrote no summary of its change.'),
            m.lastMessage
              ? h(
                  'details',
                  { class: 'last-message' },
                  h('summary', {}, 'its last message, where it stopped'),
                  h('pre', {}, m.lastMessage),
                )
              : null,
          ],
    );
  };

  const size = (n) =>
    n < 1024
      ? `${n} bytes`
      : n < 1048576
        ? `${(n / 1024).toFixed(1)} KiB`
        : `${(n / 1048576).toFixed(1)} MiB`;

  const LOG_ROLES = { 'meta-agent.log': 'meta', 'gate.log': 'gate', 'task-agent.log': 'task' };

  /**
   * The variant's logs, each read when opened (they can be large); `opener` links open one, `inline` shows
   * one already open elsewhere. A report does not hold logs.
   */
  const logPanels = (runId, v, logs) => {
    const byRole = {};
    for (const log of logs) {
      const api = `${variantPath(runId, v.id)}/logs/${encodeURIComponent(log.name)}`;
      const load = async (box) => {
        try {
          const got = await HA.get(api);
          HA.fill(box, h('pre', { class: 'log-text' }, got.text));
        } catch (error) {
          HA.fill(box, h('p', { class: 'error' }, error.message));
        }
      };
      const box = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
      const panel = h(
        'details',
        { class: 'log', id: `log-${LOG_ROLES[log.name] || 'other'}` },
        h('summary', {}, `${log.name} (${size(log.bytes)})`),
        HA.mode === 'serve'
          ? h('p', {}, h('a', { href: `/api${api}?format=text` }, 'open as plain text'))
          : null,
        box,
      );
      let loaded = false;
      panel.addEventListener('toggle', () => {
        if (panel.open && !loaded) {
          loaded = true;
          load(box);
        }
      });
      byRole[LOG_ROLES[log.name] || log.name] = {
        panel,
        opener: (label) =>
          h(
            'a',
            {
              href: `#log-${LOG_ROLES[log.name]}`,
              onclick: (e) => {
                e.preventDefault();
                panel.open = true;
                panel.scrollIntoView();
              },
            },
            label,
          ),
        inline: () => {
          const here = h('div', { class: 'log-inline' }, h('p', { class: 'muted' }, 'Loading…'));
          load(here);
          return here;
        },
      };
    }
    const section = HA.section(
      'Logs',
      logs.length === 0
        ? h('p', { class: 'muted' }, 'This variant has no logs.')
        : HA.mode === 'serve'
          ? logs.map((log) => byRole[LOG_ROLES[log.name] || log.name].panel)
          : h(
              'p',
              { class: 'muted' },
              `${logs.map((l) => l.name).join(', ')}: run hyperagents serve to read them.`,
            ),
    );
    section.id = 'logs';
    return { section, byRole: HA.mode === 'serve' ? byRole : {} };
  };

  /** The variant's whole code at its commit: its files, listed when opened, one shown when picked. */
  const filesPanel = (runId, v) => {
    if (!v.commit) return null;
    if (HA.mode !== 'serve')
      return HA.section('Files', h('p', { class: 'muted' }, 'Run hyperagents serve to read its files.'));
    const api = `${variantPath(runId, v.id)}`;
    const view = h('div', { id: 'file-view' });
    const show = async (file) => {
      try {
        const got = await HA.get(`${api}/file?path=${encodeURIComponent(file)}`);
        HA.fill(
          view,
          h('p', { class: 'muted' }, `${got.path} (${size(got.bytes)})`),
          got.text === null ? h('p', {}, got.note) : h('pre', { class: 'file-text' }, got.text),
        );
        view.scrollIntoView();
      } catch (error) {
        HA.fill(view, h('p', { class: 'error' }, error.message));
      }
    };
    const list = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
    const panel = h(
      'details',
      { id: 'files' },
      h('summary', {}, `Its files at commit ${v.commit.slice(0, 10)}`),
      list,
      view,
    );
    let loaded = false;
    panel.addEventListener('toggle', async () => {
      if (!panel.open || loaded) return;
      loaded = true;
      try {
        const got = await HA.get(`${api}/files`);
        HA.fill(
          list,
          h(
            'ul',
            { class: 'file-list' },
            got.files.map((f) =>
              h(
                'li',
                {},
                h(
                  'a',
                  {
                    href: '#file-view',
                    onclick: (e) => {
                      e.preventDefault();
                      show(f.path);
                    },
                  },
                  f.path,
                ),
                ` ${size(f.bytes)}`,
              ),
            ),
          ),
          got.cut ? h('p', { class: 'muted' }, 'Only the first files are listed.') : null,
        );
      } catch (error) {
        HA.fill(list, h('p', { class: 'error' }, error.message));
      }
    });
    return HA.section('Files', panel);
  };

  /** A call's model: the id asked for, and the one the provider said served it when that differs. */
  const modelOf = (c) =>
    c.reportedModel && c.reportedModel !== c.model ? `${c.model} (served by ${c.reportedModel})` : c.model;

  /** The variant's model calls, with their token count in the title. */
  const callsPanel = (llmCalls) => {
    const calls = HA.table(
      ['time', 'role', 'model', 'input', 'output', 'cache read', 'reasoning', 'cost', 'latency', 'status'],
      llmCalls.map((c) => [
        c.ts.slice(11, 19),
        c.role,
        modelOf(c),
        String(c.inputTokens),
        String(c.outputTokens),
        String(c.cacheReadTokens),
        String(c.reasoningTokens),
        HA.usd(c.costUsd),
        `${c.latencyMs} ms`,
        c.error ? `${c.status}: ${c.error}` : c.status,
      ]),
      { id: 'llm-calls' },
    );
    const tokens = llmCalls.reduce((n, c) => n + c.inputTokens + c.outputTokens, 0);
    return HA.section(
      `Model calls (${llmCalls.length}, ${tokens} tokens)`,
      h('div', { class: 'scroll' }, calls),
    );
  };

  /** Its confirmed score (`--confirm-top`) and its gain over variant 0 against the noise floor, if known. */
  const standingView = (st) => {
    if (!st || (st.confirmed === null && st.noiseFloor === null)) return null;
    const confirmed =
      st.confirmed === null
        ? null
        : h(
            'span',
            { id: 'confirmed-score' },
            `Confirmed ${HA.score(st.confirmed.score)} on ${st.confirmed.attempts.length} fresh attempts at the validation split (raw ${HA.score(st.confirmed.raw)})${st.reportedBest ? ": the run's reported best" : ''}.`,
          );
    const floor =
      st.noiseFloor === null
        ? null
        : `Noise floor ±${st.noiseFloor.spread.toFixed(3)} (variant 0 on ${st.noiseFloor.scores.length} attempts)`;
    const mark = HA.noiseMark(st);
    return h(
      'p',
      { id: 'score-standing' },
      confirmed,
      confirmed && floor ? ' ' : null,
      floor,
      mark ? [': ', mark] : floor ? '.' : null,
    );
  };

  /** The variant's title, the facts under it, and why it was chosen or failed. */
  const variantHeader = (runId, v, d, logs) => {
    const delta =
      v.score !== null && d.parent && d.parent.score !== null
        ? ` (${HA.signed(v.score - d.parent.score)} on its parent)`
        : '';
    return [
      crumbs(runId, `variant ${v.id}`),
      h('h1', {}, `Variant ${v.id} `, HA.badge(v.outcome, v.outcome)),
      h(
        'p',
        { class: 'facts' },
        `generation ${v.generation} · score ${HA.score(v.score)}${delta} · parent `,
        v.parent === null
          ? 'none'
          : h('a', { href: HA.href(variantPath(runId, v.parent)) }, String(v.parent)),
        ` · lineage ${d.lineage.join(' → ')} · commit ${v.commit ? v.commit.slice(0, 10) : 'none'} · `,
        h(
          'span',
          { id: 'variant-spend' },
          `${HA.usd(v.costUsd)} in ${v.llmCalls} calls, ${HA.tokens(v.inputTokens)} tokens in, ${HA.tokens(v.outputTokens)} out`,
        ),
      ),
      standingView(d.standing),
      v.selectionReason ? h('p', { class: 'muted' }, `Chosen as a parent by: ${v.selectionReason}`) : null,
      v.failureReason
        ? h(
            'p',
            { class: 'error', id: 'failure' },
            `Failed: ${v.failureReason}`,
            /^typecheck failed/.test(v.failureReason) && logs.gate
              ? [' (', logs.gate.opener('the whole typecheck output is in the gate log'), ')']
              : null,
          )
        : null,
      d.flags && d.flags.length > 0
        ? h(
            'ul',
            { class: 'error', id: 'flags' },
            ...d.flags.map((f) =>
              h('li', { 'data-flag': f.kind }, `Flag (${f.kind}, never used to select): ${f.detail}`),
            ),
          )
        : null,
    ];
  };

  HA.views.variant = async (el, { run: runId, id }) => {
    const d = await HA.get(variantPath(runId, id));
    const v = d.variant;
    const change = changePanel(runId, v, d.others);
    const logs = logPanels(runId, v, d.logs);
    HA.fill(
      el,
      ...variantHeader(runId, v, d, logs.byRole),
      HA.section('What the MetaAgent did', metaPanel(d.metaAgent)),
      HA.section('Scores', scoreTable(v)),
      change.panel,
      tasksPanel(d.tasks),
      HA.section(
        'MetaAgent transcript',
        transcriptView(
          d.transcript,
          v,
          logs.byRole,
          d.logs.some((l) => l.name === 'meta-agent.log'),
        ),
      ),
      logs.section,
      filesPanel(runId, v),
      callsPanel(d.llmCalls),
    );
    await change.showDiff(change.against);
  };

  HA.views.compareVariants = async (el, { run: runId, a, b }) => {
    const d = await HA.get(`${runPath(runId)}/compare/${a}/${b}`);
    const list = (rows) =>
      HA.table(
        ['domain', 'split', 'task', 'prediction'],
        rows.map((t) => [t.domain, t.split, t.taskId, t.prediction === null ? '–' : t.prediction]),
      );
    HA.fill(
      el,
      crumbs(runId, `variant ${a} vs ${b}`),
      h('h1', {}, `Variant ${a} vs variant ${b}`),
      h(
        'p',
        { class: 'facts', id: 'compare-counts' },
        `both solve ${d.both} · neither ${d.neither} · only ${a}: ${d.onlyA.length} · only ${b}: ${d.onlyB.length}`,
      ),
      HA.section(`Solved by variant ${a}, not by ${b}`, list(d.onlyA)),
      HA.section(`Solved by variant ${b}, not by ${a}`, list(d.onlyB)),
    );
  };
}
