// The pages: all runs, one run, one variant, two variants, several runs. Each takes the element to
// fill and the route's parameters, fetches its data through HA.get and draws with the DOM.

(() => {
  const HA = window.HA;
  const { h } = HA;
  const runPath = (id) => `/runs/${encodeURIComponent(id)}`;
  const variantPath = (run, id) => `${runPath(run)}/variants/${id}`;
  const stateBadge = (state) => HA.badge(state, state);
  const simBadge = (run) => (run.simulated ? HA.badge('simulated', 'sim') : null);

  /** The trail above a page: all runs / the run / `here`. */
  const crumbs = (runId, here) =>
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: HA.href('/') }, 'runs'),
      ' / ',
      h('a', { href: HA.href(runPath(runId)) }, runId),
      ' / ',
      here,
    );

  HA.views = {};

  HA.views.runs = async (el) => {
    const runs = await HA.get('/runs');
    const selected = new Set();
    const compare = h(
      'a',
      { class: 'button', id: 'compare-selected', href: '#', 'aria-disabled': 'true' },
      'Compare selected runs',
    );
    const update = () => {
      const ids = [...selected];
      compare.setAttribute('href', HA.href(`/compare?runs=${ids.map(encodeURIComponent).join(',')}`));
      compare.setAttribute('aria-disabled', ids.length < 2 ? 'true' : 'false');
    };
    const rows = runs.map((r) => [
      HA.mode === 'serve'
        ? h('input', {
            type: 'checkbox',
            'data-run': r.id,
            onchange: (e) => {
              if (e.target.checked) selected.add(r.id);
              else selected.delete(r.id);
              update();
            },
          })
        : '',
      h('a', { href: HA.href(runPath(r.id)) }, r.id),
      h('span', {}, stateBadge(r.state), ' ', simBadge(r)),
      r.model,
      r.domains.join(', '),
      r.generationsPlanned === null ? String(r.generations) : `${r.generations} / ${r.generationsPlanned}`,
      r.best === null
        ? '–'
        : h(
            'a',
            { href: HA.href(variantPath(r.id, r.best.id)) },
            `${HA.score(r.best.score)} (variant ${r.best.id})`,
          ),
      HA.usd(r.costUsd),
      r.createdAt.replace('T', ' ').slice(0, 19),
    ]);
    HA.fill(
      el,
      h('h1', {}, 'Runs'),
      runs.length === 0
        ? h('p', {}, 'No runs yet. Start one with hyperagents generate-loop.')
        : HA.table(
            ['', 'run', 'state', 'model', 'domains', 'generations', 'best', 'spend', 'started'],
            rows,
            { id: 'runs' },
          ),
      HA.mode === 'serve'
        ? h('p', {}, compare)
        : runs.length > 1
          ? h(
              'p',
              {},
              h(
                'a',
                { href: HA.href(`/compare?runs=${runs.map((r) => encodeURIComponent(r.id)).join(',')}`) },
                'Compare these runs',
              ),
            )
          : null,
    );
  };

  /** The run page; `live` re-renders it on each change the server reports. */
  HA.views.run = async (el, { run: runId }, state) => {
    const data = await HA.get(runPath(runId));
    const { run, variants, spend } = data;
    const filter = state.filter || { domain: '', split: 'val' };
    state.filter = filter;
    const domains = run.domains;
    const splits = [
      ...new Set(variants.flatMap((v) => Object.values(v.scores).flatMap((sp) => Object.keys(sp)))),
    ].sort();
    const scoreOf = (v) => HA.pickScore(v, filter);
    const rerender = () => HA.views.run(el, { run: runId }, state);

    const maxGen = Math.max(0, ...variants.map((v) => v.generation));
    const gens = Array.from({ length: maxGen + 1 }, (_, g) => g);
    const byGen = new Map(variants.map((v) => [v.generation, v]));
    const perGen = gens.map((g) => (byGen.has(g) ? scoreOf(byGen.get(g)) : null));
    const best = HA.bestSoFar(perGen);
    let bestId = null;
    for (const v of variants) {
      const sc = scoreOf(v);
      if (sc !== null && (bestId === null || sc > scoreOf(byGen.get(bestId)))) bestId = v.id;
    }
    const bestLineage = bestId === null ? [] : HA.lineage(variants, bestId);
    const scored = variants.map(scoreOf).filter((sc) => sc !== null);
    const scoreRange = scored.length === 0 ? [0, 1] : [Math.min(...scored), Math.max(...scored)];
    const onLineage = new Set(bestLineage);
    const lineageValues = gens.map((g) => (onLineage.has(g) ? perGen[g] : null));

    const select = (name, options, value, onchange) =>
      h(
        'select',
        { name, onchange: (e) => onchange(e.target.value) },
        options.map(([v, label]) =>
          h('option', { value: v, selected: v === value ? 'selected' : null }, label),
        ),
      );
    const filters = h(
      'div',
      { class: 'filters' },
      h(
        'label',
        {},
        'Score: ',
        select('domain', [['', 'selection score'], ...domains.map((d) => [d, d])], filter.domain, (v) => {
          filter.domain = v;
          rerender();
        }),
      ),
      filter.domain === ''
        ? null
        : h(
            'label',
            {},
            ' split: ',
            select(
              'split',
              splits.map((sp) => [sp, sp]),
              filter.split,
              (v) => {
                filter.split = v;
                rerender();
              },
            ),
          ),
    );

    const scoreChart = h('div', { class: 'chart', id: 'score-chart' });
    const spendChart = h('div', { class: 'chart', id: 'spend-chart' });
    const tree = h('div', { class: 'tree-box', id: 'tree' });
    const columns = [];
    for (const v of variants)
      for (const [d, sp] of Object.entries(v.scores))
        for (const s of Object.keys(sp))
          if (!columns.some((c) => c[0] === d && c[1] === s)) columns.push([d, s]);
    const table = HA.table(
      ['id', 'parent', 'status', 'score', ...columns.map(([d, s]) => `${d} ${s}`), 'cost', 'note'],
      [...variants]
        .reverse()
        .map((v) => [
          h('a', { href: HA.href(variantPath(run.id, v.id)) }, String(v.id)),
          v.parent === null ? '–' : String(v.parent),
          HA.badge(v.outcome, v.outcome),
          HA.score(v.score),
          ...columns.map(([d, s]) => HA.score(v.scores[d]?.[s] ? v.scores[d][s].score : null)),
          HA.usd(v.costUsd),
          v.failureReason || '',
        ]),
      { id: 'variants' },
    );
    HA.fill(
      el,
      h('p', { class: 'crumbs' }, h('a', { href: HA.href('/') }, 'runs'), ' / ', run.id),
      h(
        'h1',
        {},
        `Run ${run.id} `,
        stateBadge(run.state),
        ' ',
        simBadge(run),
        run.state === 'running' && HA.mode === 'serve' ? HA.badge('live', 'live') : null,
      ),
      h(
        'p',
        { class: 'facts' },
        `${run.model} · ${domains.join(', ')} · seed ${run.seed} · ${run.generations}${run.generationsPlanned === null ? '' : ` of ${run.generationsPlanned}`} generations · best `,
        run.best === null
          ? '–'
          : h(
              'a',
              { href: HA.href(variantPath(run.id, run.best.id)) },
              `${HA.score(run.best.score)} (variant ${run.best.id})`,
            ),
        ` · spend ${HA.usd(run.costUsd)} in ${run.llmCalls} model calls`,
      ),
      filters,
      HA.section('Score per generation', scoreChart),
      HA.section(
        'Lineage',
        h(
          'p',
          { class: 'muted' },
          `Colour: score, red ${HA.score(scoreRange[0])} (lowest) → green ${HA.score(scoreRange[1])} (highest). Square: rejected at the gate. Ring: failed. Gold: the lineage of the best. Click a variant to open it.`,
        ),
        tree,
      ),
      HA.section('Spend over time', spendChart),
      HA.section('Variants', table),
    );
    HA.chart(scoreChart, {
      x: gens,
      xLabel: 'generation',
      integerX: true,
      yLabel: 'score',
      yRange: [0, 1],
      series: [
        { label: 'variant', values: perGen, color: '#888', kind: 'points' },
        { label: 'best so far', values: best, color: '#2ca02c', kind: 'step' },
        { label: 'lineage of the best', values: lineageValues, color: '#d4a017', width: 2 },
      ],
    });
    const spent = spend.length > 0 ? spend[spend.length - 1].costUsd : 0;
    if (spent === 0) {
      HA.fill(
        spendChart,
        h(
          'p',
          { class: 'muted' },
          `No spend recorded in ${run.llmCalls} model call(s)${run.simulated ? ' (the simulated model is free)' : ''}.`,
        ),
      );
    } else {
      const t0 = Date.parse(spend[0].ts);
      HA.chart(spendChart, {
        x: spend.map((p) => (Date.parse(p.ts) - t0) / 1000),
        xLabel: 'seconds since the first call',
        yLabel: 'spend ($)',
        series: [
          { label: 'spend', values: spend.map((p) => p.costUsd), color: '#1f77b4', showPoints: false },
        ],
      });
    }
    HA.tree(tree, variants, { runId: run.id, scoreOf, bestLineage, range: scoreRange });
    return run;
  };

  const diffView = (patch) => {
    const box = h('div', { class: 'diff', id: 'diff' });
    if (patch === '') box.appendChild(h('p', {}, 'No change.'));
    // diff2html escapes the patch text it renders.
    else
      box.innerHTML = Diff2Html.html(patch, {
        drawFileList: true,
        outputFormat: 'line-by-line',
        matching: 'lines',
      });
    return box;
  };

  HA.views.variant = async (el, { run: runId, id }) => {
    const d = await HA.get(variantPath(runId, id));
    const v = d.variant;
    const delta =
      v.score !== null && d.parent && d.parent.score !== null
        ? ` (${HA.signed(v.score - d.parent.score)} on its parent)`
        : '';
    const diffBox = h('div', {}, h('p', { class: 'muted' }, 'Loading the diff…'));
    const showDiff = async (from) => {
      try {
        const fromVariant = d.others.find((o) => o.id === from);
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
    const picker = h(
      'select',
      { id: 'diff-against', onchange: (e) => showDiff(Number(e.target.value)) },
      d.others
        .filter((o) => o.id !== v.id)
        .map((o) =>
          h(
            'option',
            { value: o.id, selected: o.id === v.parent ? 'selected' : null },
            `variant ${o.id} (${o.outcome}, ${HA.score(o.score)})${o.id === v.parent ? ' — parent' : ''}`,
          ),
        ),
    );
    const comparePick = h(
      'select',
      { id: 'compare-with' },
      d.others
        .filter((o) => o.id !== v.id)
        .map((o) =>
          h('option', { value: o.id, selected: o.id === v.parent ? 'selected' : null }, `variant ${o.id}`),
        ),
    );
    const compareLink = h('a', { class: 'button', href: '#' }, 'Compare tasks');
    const setCompare = () =>
      compareLink.setAttribute('href', HA.href(`${runPath(runId)}/compare/${v.id}/${comparePick.value}`));
    comparePick.addEventListener('change', setCompare);
    setCompare();

    const scoreRows = [];
    for (const [domain, splits] of Object.entries(v.scores))
      for (const [split, s] of Object.entries(splits))
        scoreRows.push([
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
    const failedOnly = h('input', { type: 'checkbox', id: 'failed-only' });
    const tasksBox = h('div', {});
    const drawTasks = () => {
      const rows = d.tasks
        .filter((t) => !failedOnly.checked || t.outcome !== 'correct')
        .map((t) => [
          t.domain,
          t.split,
          t.task_id,
          h('div', { class: 'cell-text' }, HA.inputText(t.input)),
          h('div', { class: 'cell-text' }, t.prediction === null ? '–' : t.prediction),
          h('div', { class: 'cell-text' }, t.split === 'test' ? 'hidden (test split)' : HA.text(t.expected)),
          t.outcome === 'correct' ? '✓' : '✗',
          t.outcome === 'parse_failure'
            ? 'parse failure'
            : t.outcome === 'error'
              ? `error: ${t.error || ''}`
              : '',
          t.latency_ms === null ? '–' : `${t.latency_ms} ms`,
          HA.usd(t.cost_usd),
        ]);
      HA.fill(
        tasksBox,
        h('p', { class: 'muted' }, `${rows.length} task(s)`),
        h(
          'div',
          { class: 'scroll' },
          HA.table(
            [
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
            ],
            rows,
            { id: 'tasks' },
          ),
        ),
      );
    };
    failedOnly.addEventListener('change', drawTasks);
    drawTasks();

    const t = d.transcript;
    const transcript =
      t === null
        ? h(
            'p',
            { class: 'muted' },
            v.parent === null
              ? 'The initial agent was not made by a MetaAgent.'
              : 'The MetaAgent left no transcript.',
          )
        : h(
            'div',
            { id: 'transcript' },
            h(
              'p',
              {},
              `Status ${t.status}, ${t.toolCalls ?? '?'} tool calls, ${t.messages.length} messages.`,
            ),
            t.messages.map((m) =>
              h(
                'details',
                { class: `msg msg-${m.role}`, open: m.role === 'assistant' ? 'open' : null },
                h(
                  'summary',
                  {},
                  m.role,
                  m.toolCalls && m.toolCalls.length > 0
                    ? ` → ${m.toolCalls.map((c) => c.name).join(', ')}`
                    : '',
                ),
                h('pre', {}, m.content),
                m.toolCalls && m.toolCalls.length > 0
                  ? h('pre', { class: 'tool-calls' }, JSON.stringify(m.toolCalls, null, 2))
                  : null,
              ),
            ),
          );
    const calls = HA.table(
      ['time', 'role', 'model', 'input', 'output', 'cache read', 'reasoning', 'cost', 'latency', 'status'],
      d.llmCalls.map((c) => [
        c.ts.slice(11, 19),
        c.role,
        c.model,
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
    const tokens = d.llmCalls.reduce((n, c) => n + c.inputTokens + c.outputTokens, 0);

    HA.fill(
      el,
      crumbs(runId, `variant ${v.id}`),
      h('h1', {}, `Variant ${v.id} `, HA.badge(v.outcome, v.outcome)),
      h(
        'p',
        { class: 'facts' },
        `score ${HA.score(v.score)}${delta} · parent `,
        v.parent === null
          ? 'none'
          : h('a', { href: HA.href(variantPath(runId, v.parent)) }, String(v.parent)),
        ` · lineage ${d.lineage.join(' → ')} · commit ${v.commit ? v.commit.slice(0, 10) : 'none'} · ${HA.usd(v.costUsd)} in ${v.llmCalls} calls`,
      ),
      v.selectionReason ? h('p', { class: 'muted' }, `Chosen as a parent by: ${v.selectionReason}`) : null,
      v.failureReason ? h('p', { class: 'error', id: 'failure' }, `Failed: ${v.failureReason}`) : null,
      HA.section(
        "The MetaAgent's summary",
        h('pre', { class: 'summary', id: 'summary' }, t?.summary ? t.summary : '–'),
      ),
      HA.section(
        'Scores',
        scoreRows.length === 0
          ? h('p', {}, 'Not evaluated.')
          : HA.table(
              ['domain', 'split', 'stage', 'score', 'correct', 'wrong', 'parse failures', 'errors', 'tasks'],
              scoreRows,
              { id: 'scores' },
            ),
      ),
      HA.section(
        'Change',
        h('p', {}, 'Diff against ', picker, ' · ', comparePick, ' ', compareLink),
        diffBox,
      ),
      HA.section('Tasks', h('label', {}, failedOnly, ' only tasks it did not solve'), tasksBox),
      HA.section('MetaAgent transcript', transcript),
      HA.section(
        `Model calls (${d.llmCalls.length}, ${tokens} tokens)`,
        h('div', { class: 'scroll' }, calls),
      ),
    );
    await showDiff(v.parent);
  };

  HA.views.compareVariants = async (el, { run: runId, a, b }) => {
    const d = await HA.get(`${runPath(runId)}/compare/${a}/${b}`);
    const list = (rows) =>
      HA.table(
        ['domain', 'split', 'task', 'prediction'],
        rows.map((t) => [t.domain, t.split, t.task_id, t.prediction === null ? '–' : t.prediction]),
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

  HA.views.compareRuns = async (el, params) => {
    const ids = (params.runs || '').split(',').filter(Boolean);
    const d = await HA.get(`/compare?runs=${ids.map(encodeURIComponent).join(',')}`);
    const { groups, tests } = d.comparison;
    const length = Math.max(1, ...groups.map((g) => g.median.length));
    const x = Array.from({ length }, (_, g) => g);
    const series = [];
    const bands = [];
    groups.forEach((g, i) => {
      const color = HA.palette(i);
      const at = (pick) => x.map((k) => (g.median[k] ? pick(g.median[k]) : null));
      series.push({
        label: `${g.label}: median`,
        values: at((m) => m.estimate),
        color,
        width: 3,
        showPoints: false,
      });
      series.push({
        label: `${g.label}: 95% high`,
        values: at((m) => m.high),
        color: `${color}55`,
        width: 1,
        showPoints: false,
      });
      series.push({
        label: `${g.label}: 95% low`,
        values: at((m) => m.low),
        color: `${color}55`,
        width: 1,
        showPoints: false,
      });
      bands.push([series.length - 1, series.length, `${color}22`]);
      for (const r of g.runs)
        series.push({
          label: `${r.id}`,
          values: x.map((k) => r.curve[Math.min(k, r.curve.length - 1)] ?? null),
          color: `${color}66`,
          width: 1,
          dash: [4, 4],
          showPoints: false,
        });
    });
    const chart = h('div', { class: 'chart', id: 'compare-chart' });
    const finals = h(
      'div',
      { class: 'side-by-side', id: 'finals' },
      groups.map((g, i) =>
        h(
          'div',
          { class: 'group' },
          h('h3', { style: `color:${HA.palette(i)}` }, g.label),
          HA.table(
            ['run', 'seed', 'final best', 'area'],
            g.runs.map((r) => [
              h('a', { href: HA.href(runPath(r.id)) }, r.id),
              String(r.seed),
              HA.score(r.final),
              HA.score(r.area),
            ]),
          ),
        ),
      ),
    );
    const testRows = tests.map((t) => [
      t.a,
      t.b,
      t.test ? String(t.test.u) : '–',
      t.test ? t.test.p.toFixed(4) : '–',
      t.test ? t.test.method : 'too few runs',
    ]);
    HA.fill(
      el,
      h('p', { class: 'crumbs' }, h('a', { href: HA.href('/') }, 'runs'), ' / comparison'),
      h('h1', {}, `Comparison of ${d.runs.length} runs in ${groups.length} group(s)`),
      h(
        'p',
        { class: 'muted' },
        'Runs are grouped by condition (model, domains, parent selection, frozen MetaAgent). Bands: bootstrap 95% interval of the median.',
      ),
      HA.section(
        'Best score so far per generation',
        h(
          'p',
          { class: 'legend' },
          groups.map((g, i) =>
            h('span', { style: `color:${HA.palette(i)}` }, `━ ${g.label} (median of ${g.runs.length}) `),
          ),
          h('span', { class: 'muted' }, '· shaded: 95% interval · dashed: single runs'),
        ),
        chart,
      ),
      HA.section('Final scores', finals),
      HA.section(
        'Rank test',
        h(
          'p',
          { class: 'muted' },
          'One-sided Mann–Whitney U: are the final scores of the first group higher than those of the other?',
        ),
        HA.table(['group A', 'group B', 'U', 'p', 'method'], testRows, { id: 'rank-tests' }),
      ),
    );
    HA.chart(chart, {
      x,
      series,
      bands,
      legend: false,
      integerX: true,
      xLabel: 'generation',
      yLabel: 'best score so far',
      yRange: [0, 1],
    });
  };
})();
