// The pages of all runs and of one run.

{
  const HA = window.HA;
  const { h, runPath, variantPath, stateBadge, simBadge } = HA;

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

  /** The scores the run page charts, by generation, under `scoreOf`; the best variant's lineage. */
  const scoreSeries = (variants, scoreOf) => {
    const maxGen = Math.max(0, ...variants.map((v) => v.generation));
    const gens = Array.from({ length: maxGen + 1 }, (_, g) => g);
    const byGen = new Map(variants.map((v) => [v.generation, v]));
    const perGen = gens.map((g) => (byGen.has(g) ? scoreOf(byGen.get(g)) : null));
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
    return { gens, perGen, best: HA.bestSoFar(perGen), bestLineage, scoreRange, lineageValues };
  };

  const select = (name, options, value, onchange) =>
    h(
      'select',
      { name, onchange: (e) => onchange(e.target.value) },
      options.map(([v, label]) =>
        h('option', { value: v, selected: v === value ? 'selected' : null }, label),
      ),
    );

  /** Which score the page shows: the selection score, or one domain's score on one split. */
  const filterBar = (domains, splits, filter, rerender) =>
    h(
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

  /** Every variant, newest first, with a column per domain and split it has a score for. */
  const variantTable = (run, variants) => {
    const columns = [];
    for (const v of variants)
      for (const [d, sp] of Object.entries(v.scores))
        for (const s of Object.keys(sp))
          if (!columns.some((c) => c[0] === d && c[1] === s)) columns.push([d, s]);
    return HA.table(
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
  };

  /** The run's title and the facts under it. */
  const runHeader = (run) => [
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
      `${run.model} · ${run.domains.join(', ')} · seed ${run.seed} · ${run.generations}${run.generationsPlanned === null ? '' : ` of ${run.generationsPlanned}`} generations · best `,
      run.best === null
        ? '–'
        : h(
            'a',
            { href: HA.href(variantPath(run.id, run.best.id)) },
            `${HA.score(run.best.score)} (variant ${run.best.id})`,
          ),
      ` · spend ${HA.usd(run.costUsd)} in ${run.llmCalls} model calls`,
    ),
  ];

  const drawScores = (chart, series) =>
    HA.chart(chart, {
      x: series.gens,
      xLabel: 'generation',
      integerX: true,
      yLabel: 'score',
      yRange: [0, 1],
      series: [
        { label: 'variant', values: series.perGen, color: '#888', kind: 'points' },
        { label: 'best so far', values: series.best, color: '#2ca02c', kind: 'step' },
        { label: 'lineage of the best', values: series.lineageValues, color: '#d4a017', width: 2 },
      ],
    });

  /** Cumulative spend over time, or why there is none to draw. */
  const drawSpend = (chart, run, spend) => {
    const spent = spend.length > 0 ? spend[spend.length - 1].costUsd : 0;
    if (spent === 0) {
      HA.fill(
        chart,
        h(
          'p',
          { class: 'muted' },
          `No spend recorded in ${run.llmCalls} model call(s)${run.simulated ? ' (the simulated model is free)' : ''}.`,
        ),
      );
      return;
    }
    const t0 = Date.parse(spend[0].ts);
    HA.chart(chart, {
      x: spend.map((p) => (Date.parse(p.ts) - t0) / 1000),
      xLabel: 'seconds since the first call',
      yLabel: 'spend ($)',
      series: [{ label: 'spend', values: spend.map((p) => p.costUsd), color: '#1f77b4', showPoints: false }],
    });
  };

  /** The run page; `live` re-renders it on each change the server reports. */
  HA.views.run = async (el, { run: runId }, state) => {
    const { run, variants, spend } = await HA.get(runPath(runId));
    const filter = state.filter || { domain: '', split: 'val' };
    state.filter = filter;
    const splits = [
      ...new Set(variants.flatMap((v) => Object.values(v.scores).flatMap((sp) => Object.keys(sp)))),
    ].sort();
    const scoreOf = (v) => HA.pickScore(v, filter);
    const rerender = () => HA.views.run(el, { run: runId }, state);
    const series = scoreSeries(variants, scoreOf);
    const [low, high] = series.scoreRange;
    const scoreChart = h('div', { class: 'chart', id: 'score-chart' });
    const spendChart = h('div', { class: 'chart', id: 'spend-chart' });
    const tree = h('div', { class: 'tree-box', id: 'tree' });
    HA.fill(
      el,
      ...runHeader(run),
      filterBar(run.domains, splits, filter, rerender),
      HA.section('Score per generation', scoreChart),
      HA.section(
        'Lineage',
        h(
          'p',
          { class: 'muted' },
          `Colour: score, red ${HA.score(low)} (lowest) → green ${HA.score(high)} (highest). Square: rejected at the gate. Ring: failed. Gold: the lineage of the best. Click a variant to open it.`,
        ),
        tree,
      ),
      HA.section('Spend over time', spendChart),
      HA.section('Variants', variantTable(run, variants)),
    );
    drawScores(scoreChart, series);
    drawSpend(spendChart, run, spend);
    HA.tree(tree, variants, {
      runId: run.id,
      scoreOf,
      bestLineage: series.bestLineage,
      range: series.scoreRange,
    });
    return run;
  };
}
