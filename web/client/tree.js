// The lineage tree of a run, laid out with d3-hierarchy and drawn as SVG.

{
  const HA = window.HA;
  const { h, s } = HA;

  /** The variants as a d3 hierarchy laid out as a tree; throws when they do not form one. */
  const layout = (variants, big) => {
    const ids = new Set(variants.map((v) => v.id));
    const rows = variants.filter((v) => v.parent === null || ids.has(v.parent));
    const root = d3
      .stratify()
      .id((v) => String(v.id))
      .parentId((v) => (v.parent === null ? null : String(v.parent)))(rows);
    d3.tree().nodeSize(big ? [12, 40] : [40, 64])(root);
    return root;
  };

  /** An SVG big enough for every node of `root`, with a margin. */
  const canvas = (root, count) => {
    let minX = Infinity;
    let maxX = -Infinity;
    let maxY = 0;
    root.each((n) => {
      minX = Math.min(minX, n.x);
      maxX = Math.max(maxX, n.x);
      maxY = Math.max(maxY, n.y);
    });
    const pad = 24;
    const width = maxX - minX + pad * 2;
    const height = maxY + pad * 2;
    return s('svg', {
      class: 'tree',
      width,
      height,
      viewBox: `${minX - pad} ${-pad} ${width} ${height}`,
      role: 'img',
      'aria-label': `lineage tree of ${count} variants`,
    });
  };

  /** Parent-to-child edges; those along the best variant's lineage are marked. */
  const drawLinks = (svg, root, onBest) => {
    for (const link of root.links()) {
      const best = onBest.has(link.source.data.id) && onBest.has(link.target.data.id);
      const my = (link.source.y + link.target.y) / 2;
      svg.appendChild(
        s('path', {
          class: best ? 'edge edge-best' : 'edge',
          d: `M${link.source.x},${link.source.y}C${link.source.x},${my} ${link.target.x},${my} ${link.target.x},${link.target.y}`,
        }),
      );
    }
  };

  /** One variant's node: a link to its page, shaped and coloured by how it ended and its score. */
  const drawNode = (node, { runId, scoreOf, onBest, colorOf, big }) => {
    const v = node.data;
    const r = big ? 4 : 9;
    const score = scoreOf(v);
    const title = `variant ${v.id}: ${v.outcome}${score === null ? '' : `, score ${HA.score(score)}`}${
      v.failureReason ? ` — ${v.failureReason}` : ''
    }`;
    const shape =
      v.outcome === 'rejected'
        ? s('rect', { x: -r, y: -r, width: 2 * r, height: 2 * r, class: 'node-shape rejected' })
        : s('circle', {
            r,
            class: `node-shape ${v.outcome}${onBest.has(v.id) ? ' on-best' : ''}`,
            fill: v.outcome === 'failed' ? '#fff' : colorOf(score),
          });
    const label = big ? null : s('text', { x: r + 3, y: 4, class: 'node-label' }, String(v.id));
    const link = s(
      'a',
      {
        href: HA.href(`/runs/${encodeURIComponent(runId)}/variants/${v.id}`),
        'data-variant': v.id,
        class: 'node',
      },
      s('title', {}, title),
      shape,
      label,
    );
    link.setAttribute('transform', `translate(${node.x},${node.y})`);
    return link;
  };

  /**
   * Draws the variants as a tree (parent above child), nodes coloured by score; rejected variants are
   * grey squares, failed ones red-ringed, unfinished ones dashed; the lineage of the best is gold.
   */
  HA.tree = (el, variants, { runId, scoreOf, bestLineage, range }) => {
    HA.fill(el);
    if (variants.length === 0) return;
    const big = variants.length > 200;
    let root;
    try {
      root = layout(variants, big);
    } catch (error) {
      el.appendChild(h('p', { class: 'muted' }, `The tree cannot be drawn: ${error.message}`));
      return;
    }
    const [low, high] = range || [0, 1];
    const colorOf = (score) =>
      score === null ? HA.scoreColor(null) : HA.scoreColor(high > low ? (score - low) / (high - low) : 1);
    const onBest = new Set(bestLineage);
    const svg = canvas(root, variants.length);
    drawLinks(svg, root, onBest);
    for (const node of root.descendants()) {
      svg.appendChild(drawNode(node, { runId, scoreOf, onBest, colorOf, big }));
    }
    el.appendChild(svg);
  };
}
