// The page of one variant, drawn from its parts (change, tasks, MetaAgent, logs, files), and the comparison of
// two variants of a run.

{
  const HA = window.HA;
  const { h, runPath, variantPath, crumbs } = HA;

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
    const change = HA.changePanel(runId, v, d.others);
    const logs = HA.logPanels(runId, v, d.logs);
    HA.fill(
      el,
      ...variantHeader(runId, v, d, logs.byRole),
      HA.section('What the MetaAgent did', HA.metaPanel(d.metaAgent)),
      HA.section('Scores', HA.scoreTable(v)),
      change.panel,
      HA.tasksPanel(d.tasks),
      HA.section(
        'MetaAgent transcript',
        HA.transcriptView(
          d.transcript,
          v,
          logs.byRole,
          d.logs.some((l) => l.name === 'meta-agent.log'),
        ),
      ),
      logs.section,
      HA.filesPanel(runId, v),
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
