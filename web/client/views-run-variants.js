// A run page's Variants table: every variant, newest first, a column per domain and split it has a score
// for; a live update replaces the rows of changed variants and adds new ones on top.

{
  const HA = window.HA;
  const { h, variantPath } = HA;

  /** The columns of the variants table: one per domain and split any variant has a score for. */
  HA.scoreColumns = (variants) => {
    const columns = [];
    for (const v of variants)
      for (const [d, sp] of Object.entries(v.scores))
        for (const s of Object.keys(sp))
          if (!columns.some((c) => c[0] === d && c[1] === s)) columns.push([d, s]);
    return columns;
  };

  /** A child stopped early (--accept sequential): its scores are estimates from the tasks used. */
  const ESTIMATE =
    'an estimate from the tasks used: the child was stopped early, decided against its parent (--accept sequential)';
  const estimated = (v) => v.acceptance != null && v.acceptance.decision === 'worse';
  const scoreOf = (v, s) =>
    estimated(v) && s !== null && s !== undefined
      ? h('span', { class: 'estimate', title: ESTIMATE }, `~${HA.score(s)}`)
      : HA.score(s);
  const splitScore = (v, cell) =>
    cell && v.acceptance != null && cell.nTasks < cell.nTotal
      ? h('span', { class: 'estimate', title: ESTIMATE }, `~${HA.score(cell.score)}`)
      : HA.score(cell ? cell.score : null);

  /** Whether the table has an `accepted` column: the run decided its children sequentially. */
  HA.sequential = (variants) => variants.some((v) => v.acceptance != null);

  /** The `accepted` cell: the decision on the tasks used of all, with its evidence in the title. */
  const acceptedCell = (v) =>
    v.acceptance == null
      ? '–'
      : h(
          'span',
          {
            'data-acceptance': v.acceptance.decision,
            title:
              `against variant ${v.acceptance.parentId}: evidence ${v.acceptance.evidence.toPrecision(3)} for better, ` +
              `${v.acceptance.futility.toPrecision(3)} against a gain; ${v.acceptance.paired} tasks paired`,
          },
          `${v.acceptance.decision} ${v.acceptance.tasks}/${v.acceptance.of}`,
        );

  const variantCells = (run, v, columns, noisy, sequential) => [
    h('a', { href: HA.href(variantPath(run.id, v.id)) }, String(v.id)),
    v.parent === null ? '–' : String(v.parent),
    v.tampered
      ? [
          HA.badge(v.outcome, v.outcome),
          ' ',
          h(
            'span',
            {
              class: 'badge badge-failed',
              'data-flag': 'tampering',
              title: `${v.tampered} answer${v.tampered === 1 ? '' : 's'} tried to pass without solving the task (each scored 0); the variant's page says what the grader caught`,
            },
            'tampering',
          ),
        ]
      : HA.badge(v.outcome, v.outcome),
    noisy.has(v.id)
      ? [
          scoreOf(v, v.score),
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
      : scoreOf(v, v.score),
    ...columns.map(([d, s]) => splitScore(v, v.scores[d]?.[s])),
    ...(sequential ? [acceptedCell(v)] : []),
    HA.usd(v.costUsd),
    String(v.llmCalls),
    HA.tokens(v.inputTokens),
    HA.tokens(v.outputTokens),
    v.failureReason || '',
  ];

  const variantRow = (run, v, columns, noisy, sequential) =>
    h(
      'tr',
      { 'data-variant-row': v.id },
      variantCells(run, v, columns, noisy, sequential).map((c) => h('td', {}, c)),
    );

  /** Every variant, newest first, with a column per domain and split it has a score for. */
  HA.variantTable = (run, variants, columns, noisy) => {
    const sequential = HA.sequential(variants);
    const table = HA.table(
      [
        'id',
        'parent',
        'status',
        'score',
        ...columns.map(([d, s]) => `${d} ${s}`),
        ...(sequential ? ['accepted'] : []),
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
    for (const v of [...variants].reverse()) body.appendChild(variantRow(run, v, columns, noisy, sequential));
    return table;
  };

  /** The variants marked within noise, as a key that changes when they do. */
  HA.noiseKey = (data) => JSON.stringify(data.withinNoise || []);

  /** Replaces the rows of changed variants and adds new ones on top; a new score column redraws the table. */
  HA.patchVariantTable = (page, changed) => {
    const { run, variants } = page.data;
    const noisy = new Set(page.data.withinNoise || []);
    const dom = page.dom;
    const columns = HA.scoreColumns(variants);
    const sequential = HA.sequential(variants);
    // New score columns, a first decision, or a noise floor measured since (it marks rows that did not
    // change): redrawn.
    if (
      JSON.stringify(columns) !== JSON.stringify(dom.columns) ||
      HA.noiseKey(page.data) !== dom.noisy ||
      sequential !== dom.sequential
    ) {
      const table = HA.variantTable(run, variants, columns, noisy);
      dom.table.replaceWith(table);
      dom.table = table;
      dom.columns = columns;
      dom.noisy = HA.noiseKey(page.data);
      dom.sequential = sequential;
      return;
    }
    const body = dom.table.querySelector('tbody');
    for (const v of changed) {
      const tr = body.querySelector(`tr[data-variant-row="${v.id}"]`);
      if (tr) {
        variantCells(run, v, columns, noisy, sequential).forEach((c, i) => {
          HA.patch(tr.children[i], c);
        });
        continue;
      }
      const newer = [...body.children].find((row) => Number(row.dataset.variantRow) < v.id);
      body.insertBefore(variantRow(run, v, columns, noisy, sequential), newer || null);
    }
  };
}
