// The page of one run: drawn from its parts (health, controls, charts, costs, alerts, variants) and, while it
// runs, kept live by patching each in place.

{
  const HA = window.HA;
  const { h, runPath, variantPath, stateBadge, simBadge } = HA;

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

  /** The run's title and the facts under it. */
  const runHeader = (run, health, standing) => [
    h('p', { class: 'crumbs' }, h('a', { href: HA.href('/') }, 'runs'), ' / ', run.id),
    h('h1', {}, `Run ${run.id} `, stateBadge(health ? health.state : run.state), ' ', simBadge(run)),
    h(
      'p',
      { class: 'facts' },
      `${run.model} · ${run.domains.join(', ')} · seed ${run.seed} · ${run.generations}${run.generationsPlanned === null ? '' : ` of ${run.generationsPlanned}`} generations · best `,
      run.best === null
        ? '–'
        : h(
            'a',
            { id: 'best-score', href: HA.href(variantPath(run.id, run.best.id)) },
            `${HA.bestScoreText(run.best)} (variant ${run.best.id})`,
          ),
      HA.noiseMark(standing) ? [' · ', HA.noiseMark(standing)] : null,
      ` · spend ${HA.usd(run.costUsd)} in ${run.llmCalls} model calls`,
    ),
    bundleLink(run),
  ];

  /**
   * Served: a link that downloads the run's reproducibility bundle (the server writes it as archive bundle
   * does). A report has no server: it names the command.
   */
  const bundleLink = (run) =>
    HA.mode === 'serve'
      ? h(
          'p',
          { class: 'bundle' },
          h(
            'a',
            {
              id: 'bundle-download',
              href: `/api${runPath(run.id)}/bundle`,
              download: `${run.id}.tar.gz`,
              title: 'its archive, variant repository, configuration and manifest, as one .tar.gz',
            },
            'Download bundle',
          ),
          h('span', { class: 'muted' }, ` (check it with hyperagents archive verify ${run.id}.tar.gz)`),
        )
      : h(
          'p',
          { class: 'bundle muted' },
          `Its reproducibility bundle: hyperagents archive bundle ${run.id} -o ${run.id}.tar.gz`,
        );

  /** The tab's title: the run's state and best score, readable from another tab. */
  const tabTitle = (run, health) =>
    `${health ? health.state : run.state}${run.generationsPlanned === null ? '' : ` ${run.generations}/${run.generationsPlanned}`} · best ${
      run.best === null ? '–' : HA.score(run.best.score)
    } · run ${run.id}`;

  /** Live while it runs, and while its process still holds it after it ended (its last alerts go out then). */
  const isLive = (data) => data.run.state === 'running' || data.held === true;
  const isRunning = (data) => data.run.state === 'running';

  /** Draws the whole run page from `page.data` (on load, and when the filter changes). */
  const draw = (el, page) => {
    const { run, variants, spend, health, bestStanding } = page.data;
    const filter = page.filter;
    const splits = [
      ...new Set(variants.flatMap((v) => Object.values(v.scores).flatMap((sp) => Object.keys(sp)))),
    ].sort();
    const scoreOf = (v) => HA.pickScore(v, filter);
    const series = HA.scoreSeries(variants, scoreOf);
    const columns = HA.scoreColumns(variants);
    const dom = {
      header: h('div', { id: 'run-header' }, ...runHeader(run, health, bestStanding)),
      health: h('section', { id: 'health' }, HA.healthBox(run, health)),
      controls: isRunning(page.data) ? HA.controlBox(run, health) : null,
      alerts: HA.alertsSection(),
      estimate: HA.estimateSection(),
      batches: HA.batchSection(),
      scoreChart: h('div', { class: 'chart', id: 'score-chart' }),
      spendChart: h('div', { class: 'chart', id: 'spend-chart' }),
      costs: HA.costSections(run.id),
      legend: h('p', { class: 'muted' }, HA.legendText(series)),
      tree: h('div', { class: 'tree-box', id: 'tree' }),
      table: HA.variantTable(run, variants, columns, new Set(page.data.withinNoise || [])),
      grid: HA.regressionSection(run.id),
      columns,
      noisy: HA.noiseKey(page.data),
      sequential: HA.sequential(variants),
    };
    HA.fill(
      el,
      dom.header,
      dom.health,
      dom.controls,
      dom.estimate.section,
      dom.batches.section,
      dom.alerts.section,
      filterBar(run.domains, splits, filter, () => draw(el, page)),
      HA.section('Score per generation', dom.scoreChart),
      HA.section('Lineage', dom.legend, dom.tree),
      HA.section('Spend per generation', dom.spendChart),
      ...dom.costs.sections,
      HA.section(
        'Variants',
        dom.table,
        HA.sequential(variants)
          ? h(
              'p',
              { class: 'muted', id: 'acceptance-legend' },
              'accepted: each child decided against its parent by --accept sequential, on the tasks used of all ' +
                '(hover for the evidence); ~: a score estimated from those tasks, the child stopped early.',
            )
          : null,
      ),
      dom.grid.section,
    );
    dom.costs.update({ run, variants, spend, scoreOf });
    dom.alerts.update(page.data);
    dom.estimate.update(page.data);
    dom.batches.update(page.data);
    dom.scorePlot = HA.drawScores(dom.scoreChart, series, run.id);
    dom.spendPlot = HA.drawSpend(dom.spendChart, run, spend);
    HA.tree(dom.tree, variants, {
      runId: run.id,
      scoreOf,
      bestLineage: series.bestLineage,
      range: series.scoreRange,
    });
    document.title = tabTitle(run, health);
    page.dom = dom;
  };

  /**
   * Patches the page with an update: what changed is redrawn in place (charts get new data, rows are
   * replaced or added), so scroll, focus, hover and open panels stay as they are.
   */
  const patch = (page, changed, controlsSeen) => {
    const { run, variants, spend, health, bestStanding } = page.data;
    const dom = page.dom;
    HA.patch(dom.header, ...runHeader(run, health, bestStanding));
    HA.patch(dom.health, HA.healthBox(run, health));
    dom.alerts.update(page.data);
    dom.estimate.update(page.data);
    dom.batches.update(page.data);
    if (dom.controls && !isRunning(page.data)) {
      dom.controls.remove();
      dom.controls = null;
    } else if (dom.controls && health && HA.controlsSettled(controlsSeen))
      HA.setPaused(dom.controls, health.paused);
    document.title = tabTitle(run, health);
    if (changed.length > 0) {
      const scoreOf = (v) => HA.pickScore(v, page.filter);
      const series = HA.scoreSeries(variants, scoreOf);
      dom.scorePlot.setData(HA.scoreData(series));
      dom.scoreChart.__ids = series.ids;
      HA.patch(dom.legend, HA.legendText(series));
      HA.tree(dom.tree, variants, {
        runId: run.id,
        scoreOf,
        bestLineage: series.bestLineage,
        range: series.scoreRange,
      });
      HA.patchVariantTable(page, changed);
      dom.grid.update();
    } else if (HA.noiseKey(page.data) !== dom.noisy) HA.patchVariantTable(page, []);
    if (dom.spendPlot) dom.spendPlot.setData(HA.spendData(spend));
    else dom.spendPlot = HA.drawSpend(dom.spendChart, run, spend);
    dom.costs.update({ run, variants, spend, scoreOf: (v) => HA.pickScore(v, page.filter) });
  };

  /** Fetches what changed since the page's variants (new ones, and those still under way) and patches. */
  const refresh = async (runId, page) => {
    const known = page.data.variants;
    const after = Math.max(-1, ...known.map((v) => v.id));
    const open = known.filter((v) => v.outcome === 'in_progress').map((v) => v.id);
    const controlsSeen = HA.controlsSeen();
    const update = await HA.get(`${runPath(runId)}/update?after=${after}&open=${open.join(',')}`);
    const byId = new Map(known.map((v) => [v.id, v]));
    const changed = update.variants.filter((v) => JSON.stringify(byId.get(v.id)) !== JSON.stringify(v));
    for (const v of update.variants) byId.set(v.id, v);
    const spend = HA.mergeSpend(page.data.spend, update);
    page.data = { ...update, spend, variants: [...byId.values()].sort((a, b) => a.id - b.id) };
    HA.holdScroll(() => patch(page, changed, controlsSeen));
    return { mark: update.mark, live: isLive(update) };
  };

  /** The run page; while the run runs, the router keeps it live through `refresh`. */
  HA.views.run = async (el, { run: runId }, state) => {
    const data = await HA.get(runPath(runId));
    state.filter = state.filter || { domain: '', split: 'val' };
    const page = { data, filter: state.filter, dom: null };
    draw(el, page);
    return {
      run: data.run,
      live:
        HA.mode === 'serve' && isLive(data)
          ? { markPath: `${runPath(runId)}/mark`, mark: data.mark, refresh: () => refresh(runId, page) }
          : null,
    };
  };
}
