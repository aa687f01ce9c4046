// The lineage tree of a run, laid out with d3-hierarchy and drawn as SVG in a view that fits, zooms and pans.

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
    d3.tree().nodeSize(big ? [SPACING.big, 36] : [SPACING.small, 64])(root);
    return root;
  };

  /** The distance between neighbouring variants, in layout units, in a big tree and a small one. */
  const SPACING = { big: 14, small: 40 };
  /** A label needs this many pixels beside its neighbour to be read. */
  const LABEL_PX = 26;

  /** The box around some nodes, padded; null for none. */
  const boxOf = (nodes, pad) => {
    if (nodes.length === 0) return null;
    let [minX, maxX, minY, maxY] = [Infinity, -Infinity, Infinity, -Infinity];
    for (const n of nodes) {
      minX = Math.min(minX, n.x);
      maxX = Math.max(maxX, n.x);
      minY = Math.min(minY, n.y);
      maxY = Math.max(maxY, n.y);
    }
    return { x: minX - pad, y: minY - pad, w: maxX - minX + 2 * pad, h: maxY - minY + 2 * pad };
  };

  /** Parent-to-child edges; those along the best variant's lineage are marked. */
  const drawLinks = (g, root, onBest) => {
    for (const link of root.links()) {
      const best = onBest.has(link.source.data.id) && onBest.has(link.target.data.id);
      const my = (link.source.y + link.target.y) / 2;
      g.appendChild(
        s('path', {
          class: best ? 'edge edge-best' : 'edge',
          d: `M${link.source.x},${link.source.y}C${link.source.x},${my} ${link.target.x},${my} ${link.target.x},${link.target.y}`,
        }),
      );
    }
  };

  const titleOf = (v, score) =>
    `variant ${v.id}: ${v.outcome}${score === null ? '' : `, score ${HA.score(score)}`}${
      v.failureReason ? ` — ${v.failureReason}` : ''
    }`;

  /** One variant's node: a link to its page, shaped and coloured by how it ended and its score. */
  const drawNode = (node, { runId, scoreOf, onBest, colorOf, big }) => {
    const v = node.data;
    const r = big ? 5 : 9;
    const score = scoreOf(v);
    const shape =
      v.outcome === 'rejected'
        ? s('rect', { x: -r, y: -r, width: 2 * r, height: 2 * r, class: 'node-shape rejected' })
        : s('circle', {
            r,
            class: `node-shape ${v.outcome}${onBest.has(v.id) ? ' on-best' : ''}`,
            fill: v.outcome === 'failed' ? '#fff' : colorOf(score),
          });
    // The root's and the best lineage's ids are always shown; the others once they no longer overlap.
    const minor = v.parent !== null && !onBest.has(v.id);
    const label = s('text', { x: r + 3, y: 4, class: `node-label${minor ? ' minor' : ''}` }, String(v.id));
    const link = s(
      'a',
      {
        href: HA.href(`/runs/${encodeURIComponent(runId)}/variants/${v.id}`),
        'data-variant': v.id,
        class: 'node',
      },
      s('title', {}, titleOf(v, score)),
      shape,
      label,
    );
    link.setAttribute('transform', `translate(${node.x},${node.y})`);
    return link;
  };

  /** The side panel: what a variant is, shown when it is hovered, focused or found. */
  const preview = (panel, v, { runId, scoreOf, onBest, children }) => {
    if (!v) {
      HA.fill(
        panel,
        h('p', { class: 'muted' }, 'Point at a variant to preview it here; click it to open it.'),
      );
      return;
    }
    const score = scoreOf(v);
    HA.fill(
      panel,
      h('h3', {}, `Variant ${v.id} `, HA.badge(v.outcome, v.outcome)),
      h(
        'dl',
        {},
        h('dt', {}, 'score'),
        h('dd', {}, score === null ? '–' : HA.score(score)),
        h('dt', {}, 'parent'),
        h('dd', {}, v.parent === null ? '–' : String(v.parent)),
        h('dt', {}, 'children'),
        h('dd', {}, String(children.get(v.id) || 0)),
        h('dt', {}, 'cost'),
        h('dd', {}, typeof v.costUsd === 'number' ? HA.usd(v.costUsd) : '–'),
        v.failureReason ? [h('dt', {}, 'why'), h('dd', { class: 'cell-text' }, v.failureReason)] : null,
      ),
      onBest.has(v.id) ? h('p', {}, 'On the lineage of the best.') : null,
      h(
        'a',
        { href: HA.href(`/runs/${encodeURIComponent(runId)}/variants/${v.id}`) },
        `Open variant ${v.id}`,
      ),
    );
  };

  /**
   * Draws the variants as a tree (parent above child), nodes coloured by score; rejected variants are
   * grey squares, failed ones red-ringed, unfinished ones dashed; the lineage of the best is gold. The view
   * fits, zooms (buttons, the wheel) and pans (drag); it opens on the root and the best lineage. Rejected
   * and failed leaves can be collapsed, a variant found by id, and one previewed beside the tree. Drawn
   * again on a live update, it keeps its view, its options and what is previewed.
   */
  HA.tree = (el, variants, opts) => {
    const kept = el.__tree || { view: null, collapse: false, previewed: null };
    el.__tree = kept;
    kept.variants = variants;
    kept.opts = opts;
    if (!el.__treeUi) el.__treeUi = buildUi(el, kept);
    redraw(el, kept);
  };

  /** The tools, the view and the panel, made once per tree box. */
  const buildUi = (el, kept) => {
    const collapse = h('input', { type: 'checkbox', id: 'tree-collapse' });
    const find = h('input', {
      type: 'search',
      id: 'tree-find',
      inputmode: 'numeric',
      placeholder: 'variant id',
      'aria-label': 'find a variant by id',
    });
    const found = h('span', { id: 'tree-found', class: 'muted', role: 'status' });
    const button = (id, label, title, onclick) => h('button', { type: 'button', id, title, onclick }, label);
    const tools = h(
      'div',
      { class: 'tree-tools' },
      button('tree-fit', 'Fit', 'show the whole tree', () => fitTo(el, 'all')),
      button('tree-best', 'Best lineage', 'show the root and the lineage of the best', () =>
        fitTo(el, 'best'),
      ),
      button('tree-zoom-in', '+', 'zoom in', () => zoom(el, 1 / 1.5)),
      button('tree-zoom-out', '−', 'zoom out', () => zoom(el, 1.5)),
      h('label', {}, collapse, ' Collapse rejected and failed leaves'),
      h(
        'form',
        {
          class: 'tree-find',
          onsubmit: (e) => {
            e.preventDefault();
            findVariant(el, find.value.trim());
          },
        },
        find,
        h('button', { type: 'submit', id: 'tree-find-go' }, 'Find'),
      ),
      found,
    );
    const view = h('div', { class: 'tree-view', id: 'tree-view' });
    const panel = h('aside', { class: 'tree-preview', id: 'tree-preview' });
    el.append(tools, h('div', { class: 'tree-main' }, view, panel));
    collapse.addEventListener('change', () => {
      kept.collapse = collapse.checked;
      redraw(el, kept);
    });
    panView(el, view);
    return { view, panel, found };
  };

  /** The variants drawn: with collapse on, without the rejected and failed ones no variant descends from. */
  const shownVariants = (kept) => {
    if (!kept.collapse) return kept.variants;
    const parents = new Set(kept.variants.map((v) => v.parent));
    return kept.variants.filter(
      (v) => parents.has(v.id) || (v.outcome !== 'rejected' && v.outcome !== 'failed'),
    );
  };

  const redraw = (el, kept) => {
    const ui = el.__treeUi;
    const { runId, scoreOf, bestLineage, range } = kept.opts;
    const variants = shownVariants(kept);
    const hidden = kept.variants.length - variants.length;
    ui.view.replaceChildren();
    ui.found.textContent = hidden > 0 ? `${hidden} rejected or failed leaves collapsed` : '';
    if (variants.length === 0) return;
    const big = kept.variants.length > 80;
    kept.big = big;
    let root;
    try {
      root = layout(variants, big);
    } catch (error) {
      ui.view.appendChild(h('p', { class: 'muted' }, `The tree cannot be drawn: ${error.message}`));
      return;
    }
    const [low, high] = range || [0, 1];
    const colorOf = (score) =>
      score === null ? HA.scoreColor(null) : HA.scoreColor(high > low ? (score - low) / (high - low) : 1);
    const onBest = new Set(bestLineage);
    const children = new Map();
    for (const v of kept.variants)
      if (v.parent !== null) children.set(v.parent, (children.get(v.parent) || 0) + 1);
    const byId = new Map(kept.variants.map((v) => [v.id, v]));
    const svg = s('svg', {
      class: 'tree',
      role: 'img',
      'aria-label': `lineage tree of ${kept.variants.length} variants`,
      'data-count': variants.length,
    });
    const g = s('g', {});
    drawLinks(g, root, onBest);
    const nodes = root.descendants();
    for (const node of nodes) g.appendChild(drawNode(node, { runId, scoreOf, onBest, colorOf, big }));
    svg.appendChild(g);
    ui.view.appendChild(svg);
    const show = (id) => {
      kept.previewed = id;
      preview(ui.panel, byId.get(id), { runId, scoreOf, onBest, children });
    };
    const pointAt = (e) => {
      const a = e.target.closest?.('a.node');
      if (a) show(Number(a.dataset.variant));
    };
    svg.addEventListener('mouseover', pointAt);
    svg.addEventListener('focusin', pointAt);
    el.__treeShown = { nodes, show, byId };
    show(kept.previewed !== null && byId.has(kept.previewed) ? kept.previewed : null);
    if (kept.view) setView(el, kept.view);
    else fitTo(el, big ? 'best' : 'all');
  };

  /** Sets the part of the layout shown, `{x, y, w, h}` in layout units, kept to the view's shape. */
  const setView = (el, box) => {
    const svg = el.__treeUi.view.querySelector('svg');
    if (!svg) return;
    const vw = el.__treeUi.view.clientWidth || 800;
    const vh = el.__treeUi.view.clientHeight || 480;
    // Widen the box on one side so the layout is not stretched.
    let { x, y, w, h: ht } = box;
    if (w / ht < vw / vh) {
      const nw = (ht * vw) / vh;
      x -= (nw - w) / 2;
      w = nw;
    } else {
      const nh = (w * vh) / vw;
      y -= (nh - ht) / 2;
      ht = nh;
    }
    el.__tree.view = { x, y, w, h: ht };
    svg.setAttribute('viewBox', `${x} ${y} ${w} ${ht}`);
    const scale = vw / w;
    const spacing = el.__tree.big ? SPACING.big : SPACING.small;
    svg.classList.toggle('tree-far', scale * spacing < LABEL_PX);
    el.dataset.scale = scale.toFixed(3);
  };

  /** Fits the view to the whole tree, or to the root and the lineage of the best. */
  const fitTo = (el, what) => {
    const shown = el.__treeShown;
    if (!shown) return;
    const onBest = new Set(el.__tree.opts.bestLineage);
    const nodes =
      what === 'best' ? shown.nodes.filter((n) => n.parent === null || onBest.has(n.data.id)) : shown.nodes;
    const box = boxOf(nodes, 24);
    if (!box) return;
    // Never closer than a readable size: a short lineage is shown with its neighbours.
    const vw = el.__treeUi.view.clientWidth || 800;
    const minW = Math.min(vw / 1.2, boxOf(shown.nodes, 24).w);
    if (box.w < minW) {
      box.x -= (minW - box.w) / 2;
      box.w = minW;
    }
    setView(el, box);
  };

  /** Zooms by `factor` of the view's size (below 1 closer) about the point (cx, cy), the centre by default. */
  const zoom = (el, factor, cx, cy) => {
    const v = el.__tree.view;
    if (!v) return;
    const px = cx ?? v.x + v.w / 2;
    const py = cy ?? v.y + v.h / 2;
    setView(el, {
      x: px - (px - v.x) * factor,
      y: py - (py - v.y) * factor,
      w: v.w * factor,
      h: v.h * factor,
    });
  };

  /** Centres the view on a variant, closer if it was far, marks it and previews it. */
  const findVariant = (el, text) => {
    const ui = el.__treeUi;
    const shown = el.__treeShown;
    const id = Number(text);
    const node = /^\d+$/.test(text) && shown ? shown.nodes.find((n) => n.data.id === id) : undefined;
    for (const old of ui.view.querySelectorAll('a.node.found')) old.classList.remove('found');
    if (!node) {
      ui.found.textContent =
        text === ''
          ? 'Give a variant id.'
          : shown?.byId.has(id)
            ? `Variant ${id} is collapsed: untick "Collapse" to see it.`
            : `No variant ${text} in this run.`;
      return;
    }
    ui.found.textContent = `Variant ${id}`;
    const w = Math.min(el.__tree.view.w, (ui.view.clientWidth || 800) / 1.5);
    setView(el, { x: node.x - w / 2, y: node.y - w / 4, w, h: w / 2 });
    const a = ui.view.querySelector(`a.node[data-variant="${id}"]`);
    if (a) a.classList.add('found');
    shown.show(id);
  };

  /** Drag to pan, the wheel to zoom about the pointer; a drag does not open the variant it started on. */
  const panView = (el, view) => {
    let drag = null;
    let draggedAt = 0;
    // The click that ends a drag is not a click on a node.
    view.addEventListener(
      'click',
      (c) => {
        if (Date.now() - draggedAt < 400) c.preventDefault();
      },
      { capture: true },
    );
    // Keeps the view's shape when the page is resized.
    new ResizeObserver(() => {
      if (el.__tree.view) setView(el, el.__tree.view);
    }).observe(view);
    const toLayout = (e) => {
      const v = el.__tree.view;
      const r = view.getBoundingClientRect();
      return {
        x: v.x + ((e.clientX - r.left) / r.width) * v.w,
        y: v.y + ((e.clientY - r.top) / r.height) * v.h,
      };
    };
    // A drag that starts on a node pans; it does not drag the node's link away.
    view.addEventListener('dragstart', (e) => e.preventDefault());
    view.addEventListener('pointerdown', (e) => {
      if (!el.__tree.view || e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, view: el.__tree.view, moved: false };
    });
    view.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      if (!drag.moved) view.setPointerCapture(e.pointerId);
      drag.moved = true;
      const r = view.getBoundingClientRect();
      const k = drag.view.w / r.width;
      setView(el, { ...drag.view, x: drag.view.x - dx * k, y: drag.view.y - dy * k });
    });
    const end = (e) => {
      if (drag?.moved) {
        view.releasePointerCapture(e.pointerId);
        draggedAt = Date.now();
      }
      drag = null;
    };
    view.addEventListener('pointerup', end);
    view.addEventListener('pointercancel', end);
    view.addEventListener(
      'wheel',
      (e) => {
        if (!el.__tree.view) return;
        e.preventDefault();
        const at = toLayout(e);
        zoom(el, e.deltaY > 0 ? 1.2 : 1 / 1.2, at.x, at.y);
      },
      { passive: false },
    );
  };
}
