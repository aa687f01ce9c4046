// The pages of all runs and of one run.

(() => {
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
})();
