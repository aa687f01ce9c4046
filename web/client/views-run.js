// The pages of all runs and of one run.

{
  const HA = window.HA;
  const { h, runPath, variantPath, stateBadge, simBadge } = HA;

  /** The state a page shows for a run: its health's (a run whose every generation failed is failed). */
  const shownState = (r) => (r.health ? r.health.state : r.state);

  /** One row of the runs table, without its checkbox cell. */
  const runCells = (r) => {
    const health = r.health;
    return [
      h('a', { href: HA.href(runPath(r.id)) }, r.id),
      h('span', { title: health ? health.why : null }, stateBadge(shownState(r)), ' ', simBadge(r)),
      r.model,
      r.domains.join(', '),
      r.generationsPlanned === null ? String(r.generations) : `${r.generations} / ${r.generationsPlanned}`,
      health && health.failed > 0
        ? h(
            'span',
            { class: 'fail-count', title: failureText(health) },
            `${health.failed} of ${health.finished}`,
          )
        : '0',
      r.best === null
        ? '–'
        : h(
            'a',
            { href: HA.href(variantPath(r.id, r.best.id)) },
            `${HA.bestScoreText(r.best)} (variant ${r.best.id})`,
          ),
      HA.usd(r.costUsd),
      r.createdAt.replace('T', ' ').slice(0, 19),
    ];
  };

  const failureText = (health) => health.failures.map((f) => `${f.count} ${f.cause}`).join(', ');
  const rowLevel = (r) => (r.health ? r.health.level : 'ok');

  /** The list of runs; served, it stays live: rows are patched in place, a new run gets a row. */
  HA.views.runs = async (el) => {
    const mark = HA.mode === 'serve' ? (await HA.get('/mark')).mark : null;
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
    const checkbox = (r) =>
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
        : '';
    const row = (r) =>
      h(
        'tr',
        { 'data-run-row': r.id, class: `level-${rowLevel(r)}` },
        h('td', {}, checkbox(r)),
        runCells(r).map((c) => h('td', {}, c)),
      );
    const table = HA.table(
      ['', 'run', 'state', 'model', 'domains', 'generations', 'failed', 'best', 'spend', 'started'],
      [],
      { id: 'runs' },
    );
    const body = table.querySelector('tbody');
    for (const r of runs) body.appendChild(row(r));
    HA.fill(
      el,
      h('h1', {}, 'Runs'),
      runs.length === 0
        ? h('p', { id: 'no-runs' }, 'No runs yet. Start one with hyperagents generate-loop.')
        : null,
      table,
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
    /** Patches each row's cells but the checkbox; adds rows of new runs in the server's order. */
    const refresh = async () => {
      const now = (await HA.get('/mark')).mark;
      const latest = await HA.get('/runs');
      HA.holdScroll(() => patchRows(latest));
      const noRuns = el.querySelector('#no-runs');
      if (noRuns && latest.length > 0) noRuns.remove();
      return { mark: now, live: true };
    };
    const patchRows = (latest) => {
      const rows = new Map([...body.children].map((tr) => [tr.dataset.runRow, tr]));
      let before = null;
      for (const r of [...latest].reverse()) {
        let tr = rows.get(r.id);
        if (tr) {
          tr.className = `level-${rowLevel(r)}`;
          runCells(r).forEach((c, i) => {
            HA.patch(tr.children[i + 1], c);
          });
        } else {
          tr = row(r);
          body.insertBefore(tr, before);
        }
        before = tr;
      }
    };
    return { live: mark === null ? null : { markPath: '/mark', mark, refresh } };
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
    // A failed or rejected generation is marked at the foot of the chart, so failures are seen too.
    const failedValues = gens.map((g) => {
      const v = byGen.get(g);
      return v && (v.outcome === 'failed' || v.outcome === 'rejected') ? 0 : null;
    });
    const ids = gens.map((g) => (byGen.has(g) ? byGen.get(g).id : null));
    return {
      gens,
      perGen,
      best: HA.bestSoFar(perGen),
      bestLineage,
      scoreRange,
      lineageValues,
      failedValues,
      ids,
    };
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

  /** The columns of the variants table: one per domain and split any variant has a score for. */
  const scoreColumns = (variants) => {
    const columns = [];
    for (const v of variants)
      for (const [d, sp] of Object.entries(v.scores))
        for (const s of Object.keys(sp))
          if (!columns.some((c) => c[0] === d && c[1] === s)) columns.push([d, s]);
    return columns;
  };

  const variantCells = (run, v, columns, noisy) => [
    h('a', { href: HA.href(variantPath(run.id, v.id)) }, String(v.id)),
    v.parent === null ? '–' : String(v.parent),
    HA.badge(v.outcome, v.outcome),
    noisy.has(v.id)
      ? [
          HA.score(v.score),
          ' ',
          h(
            'span',
            {
              class: 'noise-mark within-noise',
              title: 'its gain over variant 0 lies within the noise floor',
            },
            'within noise',
          ),
        ]
      : HA.score(v.score),
    ...columns.map(([d, s]) => HA.score(v.scores[d]?.[s] ? v.scores[d][s].score : null)),
    HA.usd(v.costUsd),
    String(v.llmCalls),
    HA.tokens(v.inputTokens),
    HA.tokens(v.outputTokens),
    v.failureReason || '',
  ];

  const variantRow = (run, v, columns, noisy) =>
    h(
      'tr',
      { 'data-variant-row': v.id },
      variantCells(run, v, columns, noisy).map((c) => h('td', {}, c)),
    );

  /** Every variant, newest first, with a column per domain and split it has a score for. */
  const variantTable = (run, variants, columns, noisy) => {
    const table = HA.table(
      [
        'id',
        'parent',
        'status',
        'score',
        ...columns.map(([d, s]) => `${d} ${s}`),
        'cost',
        'calls',
        'tokens in',
        'tokens out',
        'note',
      ],
      [],
      { id: 'variants' },
    );
    const body = table.querySelector('tbody');
    for (const v of [...variants].reverse()) body.appendChild(variantRow(run, v, columns, noisy));
    return table;
  };

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

  const hours = (x) => (x < 1 ? `${Math.round(x * 60)} min` : `${x.toFixed(1)} h`);

  /** The run's health: state and why, the resume command, failures, budget, pace and what is left. */
  const healthBox = (run, health) => {
    if (!health) return null;
    const facts = [
      `${health.finished} of ${run.generationsPlanned ?? '?'} generations ended`,
      health.failed === 0 ? 'none failed' : `${health.failed} failed (${failureText(health)})`,
    ];
    const budget =
      health.budgetUsd === null
        ? `spent ${HA.usd(health.spentUsd)} (no budget set)`
        : `spent ${HA.usd(health.spentUsd)} of the ${HA.usd(health.budgetUsd)} budget (${
            health.budgetUsd > 0 ? Math.round((100 * health.spentUsd) / health.budgetUsd) : 100
          } %)`;
    return h(
      'div',
      { class: `health health-${health.level}` },
      h(
        'p',
        { class: 'health-state' },
        stateBadge(health.state),
        ' ',
        h('span', { id: 'health-why' }, health.why),
      ),
      health.resume
        ? h('p', {}, 'Continue it with: ', h('code', { id: 'resume-command' }, health.resume))
        : null,
      h('p', { id: 'health-failures' }, facts.join(' · ')),
      h('p', { id: 'health-budget' }, budget),
      h(
        'p',
        { id: 'health-pace' },
        health.perHour === null
          ? 'No generation has ended yet.'
          : `${health.perHour.toFixed(1)} generations per hour`,
        health.estimate
          ? ` · at this pace, ${health.estimate.generations} more take about ${hours(health.estimate.hours)} and ${HA.usd(health.estimate.costUsd)}`
          : '',
      ),
      health.controls.length === 0
        ? null
        : h(
            'ul',
            { id: 'controls' },
            health.controls.map((c) =>
              h(
                'li',
                {},
                `${c.ts.replace('T', ' ').slice(0, 19)} ${c.action}${c.value === null ? '' : ` ${c.value}`}`,
              ),
            ),
          ),
    );
  };

  /**
   * The controls of a running run, as `hyperagents control` gives them: Pause / Resume, Stop after those under
   * way, a budget and a note. Drawn once (a live update only turns Pause and Resume on and off, so what is
   * typed stays); without the token the box says where to get it.
   */
  const controlBox = (run, health) => {
    if (!HA.controlsOn) return null;
    const box = h('section', { id: 'run-controls', class: 'run-controls' }, h('h2', {}, 'Steer the run'));
    if (!HA.controlToken(run.id)) {
      box.appendChild(
        h(
          'p',
          { class: 'muted', id: 'control-token-missing' },
          'To steer this run from here, open once the address hyperagents serve printed (it ends in #token=…) ' +
            'or the one generate-loop printed for this run (it ends in #secret=…); ' +
            'or use hyperagents control on the terminal.',
        ),
      );
      return box;
    }
    const result = h('p', { id: 'control-result', role: 'status', 'aria-live': 'polite' });
    const send = async (control, done) => {
      result.className = '';
      result.textContent = 'sending…';
      controls.sent++;
      try {
        const answer = await HA.sendControl(run.id, control);
        result.textContent = answer.message;
        if (done) done();
        if (control.action === 'pause' || control.action === 'resume')
          setPaused(box, control.action === 'pause');
      } catch (error) {
        result.className = 'error';
        result.textContent = error.message;
      } finally {
        controls.answered++;
      }
    };
    const button = (id, label, control, title) =>
      h('button', { type: 'button', id, title, onclick: () => send(control) }, label);
    const budget = h('input', {
      type: 'number',
      id: 'control-budget',
      min: '0',
      step: '0.01',
      placeholder: health && health.budgetUsd !== null ? health.budgetUsd.toFixed(2) : 'USD',
      'aria-label': 'budget in US dollars for the whole run',
    });
    const note = h('input', {
      type: 'text',
      id: 'control-note',
      placeholder: 'a note for the next MetaAgent',
      'aria-label': 'note for the next MetaAgent',
    });
    box.append(
      h(
        'div',
        { class: 'control-row' },
        button('control-pause', 'Pause', { action: 'pause' }, 'start no new generation until Resume'),
        button('control-resume', 'Resume', { action: 'resume' }, 'start generations again'),
        button(
          'control-stop-after',
          'Stop after those under way',
          { action: 'stop-after' },
          'let the generations under way finish, start no more, and stop (it can be resumed)',
        ),
      ),
      h(
        'form',
        {
          class: 'control-row',
          id: 'control-budget-form',
          onsubmit: (e) => {
            e.preventDefault();
            const value = Number(budget.value);
            if (budget.value.trim() === '' || !Number.isFinite(value) || value < 0) {
              result.className = 'error';
              result.textContent = 'Give the budget in US dollars, 0 or more (e.g. 5 or 2.50).';
              return;
            }
            send({ action: 'budget', value }, () => {
              budget.value = '';
            });
          },
        },
        h('label', {}, 'Budget $ ', budget),
        h('button', { type: 'submit', id: 'control-budget-set' }, 'Set budget'),
      ),
      h(
        'form',
        {
          class: 'control-row',
          id: 'control-note-form',
          onsubmit: (e) => {
            e.preventDefault();
            const text = note.value.trim();
            if (text === '') {
              result.className = 'error';
              result.textContent = 'Write the note first.';
              return;
            }
            send({ action: 'note', value: text }, () => {
              note.value = '';
            });
          },
        },
        note,
        h('button', { type: 'submit', id: 'control-note-add' }, 'Add note'),
      ),
      result,
    );
    setPaused(box, health ? health.paused : false);
    return box;
  };

  /**
   * Controls sent from this page and answered. An update asked for before the latest control was
   * answered may say what held before it, so it does not set the buttons.
   */
  const controls = { sent: 0, answered: 0 };
  /** True when no control was under way as an update was asked for, and none was sent since. */
  const settled = (seen) => seen.sent === seen.answered && seen.sent === controls.sent;

  /** Turns Pause off while paused and Resume off while not. */
  const setPaused = (box, paused) => {
    const pause = box.querySelector('#control-pause');
    const resume = box.querySelector('#control-resume');
    if (pause) pause.disabled = paused;
    if (resume) resume.disabled = !paused;
  };

  /** The tab's title: the run's state and best score, readable from another tab. */
  const tabTitle = (run, health) =>
    `${health ? health.state : run.state}${run.generationsPlanned === null ? '' : ` ${run.generations}/${run.generationsPlanned}`} · best ${
      run.best === null ? '–' : HA.score(run.best.score)
    } · run ${run.id}`;

  const scoreData = (series) => [
    series.gens,
    series.perGen,
    series.best,
    series.lineageValues,
    series.failedValues,
  ];

  /** The score chart; a click on it opens the variant of the generation under the pointer. */
  const drawScores = (chart, series, runId) => {
    chart.__ids = series.ids;
    const plot = HA.chart(chart, {
      x: series.gens,
      xLabel: 'generation',
      integerX: true,
      yLabel: 'score',
      yRange: [0, 1],
      series: [
        { label: 'variant', values: series.perGen, color: '#888', kind: 'points' },
        { label: 'best so far', values: series.best, color: '#2ca02c', kind: 'step' },
        { label: 'lineage of the best', values: series.lineageValues, color: '#d4a017', width: 2 },
        { label: 'failed or rejected', values: series.failedValues, color: '#c62828', kind: 'points' },
      ],
    });
    plot.over.style.cursor = 'pointer';
    plot.over.addEventListener('click', () => {
      const id =
        plot.cursor.idx === null || plot.cursor.idx === undefined ? null : chart.__ids[plot.cursor.idx];
      if (id !== null && id !== undefined) location.assign(HA.href(variantPath(runId, id)));
    });
    return plot;
  };

  /** The run's spend so far after each generation (one point a generation), or why there is none. */
  const spendData = (spend) => {
    const points = spend.filter((p) => p.generation !== null);
    return [points.map((p) => p.generation), points.map((p) => p.cumulativeUsd)];
  };

  const drawSpend = (chart, run, spend) => {
    const spent = spend.length > 0 ? spend[spend.length - 1].cumulativeUsd : 0;
    if (spent === 0) {
      HA.patch(
        chart,
        h(
          'p',
          { class: 'muted' },
          `No spend recorded in ${run.llmCalls} model call(s)${run.simulated ? ' (the simulated model is free)' : ''}.`,
        ),
      );
      return null;
    }
    const [x, y] = spendData(spend);
    return HA.chart(chart, {
      x,
      xLabel: 'generation',
      integerX: true,
      yLabel: 'spend so far ($)',
      series: [{ label: 'spend so far', values: y, color: '#1f77b4' }],
    });
  };

  const legendText = (series) => {
    const [low, high] = series.scoreRange;
    return `Colour: score, red ${HA.score(low)} (lowest) → green ${HA.score(high)} (highest). Square: rejected at the gate. Ring: failed. Gold: the lineage of the best. Point at a variant to preview it, click it to open it; drag to pan, the wheel or + and − to zoom.`;
  };

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
    const series = scoreSeries(variants, scoreOf);
    const columns = scoreColumns(variants);
    const dom = {
      header: h('div', { id: 'run-header' }, ...runHeader(run, health, bestStanding)),
      health: h('section', { id: 'health' }, healthBox(run, health)),
      controls: isRunning(page.data) ? controlBox(run, health) : null,
      alerts: HA.alertsSection(),
      estimate: HA.estimateSection(),
      scoreChart: h('div', { class: 'chart', id: 'score-chart' }),
      spendChart: h('div', { class: 'chart', id: 'spend-chart' }),
      costs: HA.costSections(run.id),
      legend: h('p', { class: 'muted' }, legendText(series)),
      tree: h('div', { class: 'tree-box', id: 'tree' }),
      table: variantTable(run, variants, columns, new Set(page.data.withinNoise || [])),
      columns,
      noisy: noiseKey(page.data),
    };
    HA.fill(
      el,
      dom.header,
      dom.health,
      dom.controls,
      dom.estimate.section,
      dom.alerts.section,
      filterBar(run.domains, splits, filter, () => draw(el, page)),
      HA.section('Score per generation', dom.scoreChart),
      HA.section('Lineage', dom.legend, dom.tree),
      HA.section('Spend per generation', dom.spendChart),
      ...dom.costs.sections,
      HA.section('Variants', dom.table),
    );
    dom.costs.update({ run, variants, spend, scoreOf });
    dom.alerts.update(page.data);
    dom.estimate.update(page.data);
    dom.scorePlot = drawScores(dom.scoreChart, series, run.id);
    dom.spendPlot = drawSpend(dom.spendChart, run, spend);
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
    HA.patch(dom.health, healthBox(run, health));
    dom.alerts.update(page.data);
    dom.estimate.update(page.data);
    if (dom.controls && !isRunning(page.data)) {
      dom.controls.remove();
      dom.controls = null;
    } else if (dom.controls && health && settled(controlsSeen)) setPaused(dom.controls, health.paused);
    document.title = tabTitle(run, health);
    if (changed.length > 0) {
      const scoreOf = (v) => HA.pickScore(v, page.filter);
      const series = scoreSeries(variants, scoreOf);
      dom.scorePlot.setData(scoreData(series));
      dom.scoreChart.__ids = series.ids;
      HA.patch(dom.legend, legendText(series));
      HA.tree(dom.tree, variants, {
        runId: run.id,
        scoreOf,
        bestLineage: series.bestLineage,
        range: series.scoreRange,
      });
      patchTable(page, changed);
    } else if (noiseKey(page.data) !== dom.noisy) patchTable(page, []);
    if (dom.spendPlot) dom.spendPlot.setData(spendData(spend));
    else dom.spendPlot = drawSpend(dom.spendChart, run, spend);
    dom.costs.update({ run, variants, spend, scoreOf: (v) => HA.pickScore(v, page.filter) });
  };

  const noiseKey = (data) => JSON.stringify(data.withinNoise || []);

  /** Replaces the rows of changed variants and adds new ones on top; a new score column redraws the table. */
  const patchTable = (page, changed) => {
    const { run, variants } = page.data;
    const noisy = new Set(page.data.withinNoise || []);
    const dom = page.dom;
    const columns = scoreColumns(variants);
    // New score columns, or a noise floor measured since (it marks rows that did not change): redrawn.
    if (JSON.stringify(columns) !== JSON.stringify(dom.columns) || noiseKey(page.data) !== dom.noisy) {
      const table = variantTable(run, variants, columns, noisy);
      dom.table.replaceWith(table);
      dom.table = table;
      dom.columns = columns;
      dom.noisy = noiseKey(page.data);
      return;
    }
    const body = dom.table.querySelector('tbody');
    for (const v of changed) {
      const tr = body.querySelector(`tr[data-variant-row="${v.id}"]`);
      if (tr) {
        variantCells(run, v, columns, noisy).forEach((c, i) => {
          HA.patch(tr.children[i], c);
        });
        continue;
      }
      const newer = [...body.children].find((row) => Number(row.dataset.variantRow) < v.id);
      body.insertBefore(variantRow(run, v, columns, noisy), newer || null);
    }
  };

  /** Fetches what changed since the page's variants (new ones, and those still under way) and patches. */
  const refresh = async (runId, page) => {
    const known = page.data.variants;
    const after = Math.max(-1, ...known.map((v) => v.id));
    const open = known.filter((v) => v.outcome === 'in_progress').map((v) => v.id);
    const controlsSeen = { ...controls };
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
