// Shared helpers of the archive pages. Text from agents and models only ever reaches the page as text
// nodes or attribute values set through the DOM, never as markup.

window.HA = window.HA || {};
{
  const HA = window.HA;
  const mode = document.body.dataset.mode === 'report' ? 'report' : 'serve';
  HA.mode = mode;
  /** The pages, by name: filled by views-*.js, routed to by app.js. */
  HA.views = {};
  const reportData =
    mode === 'report' ? JSON.parse(document.getElementById('report-data').textContent || '{}') : null;

  /** JSON for an API path: fetched from the server, or read from the data inlined in a report. */
  HA.get = async (apiPath) => {
    if (mode === 'report') {
      const found = reportData.api[apiPath];
      if (found === undefined)
        throw new Error('This view is not part of the report (run hyperagents serve for it).');
      return found;
    }
    const response = await fetch(`/api${apiPath}`, { headers: { accept: 'application/json' } });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body;
  };
  HA.reportRuns = () => (reportData ? reportData.runs : []);

  /**
   * The controls of a running run (pause, resume, stop-after, budget, note): on when the server has a
   * control token. The token comes once in the address `hyperagents serve` printed (#token=...), good for
   * every run; a run's own secret in the address generate-loop printed for it (/runs/RUN#secret=...), good
   * for that run. The page keeps either in this browser and takes it out of the address bar.
   */
  HA.controlsOn = mode === 'serve' && document.body.dataset.controls === 'on';
  const TOKEN_KEY = 'hyperagents-control-token';
  const secretKey = (runId) => `hyperagents-run-secret:${runId}`;
  if (HA.controlsOn) {
    const given = /(?:^#|&)token=([\w-]+)/.exec(location.hash);
    const secret = /(?:^#|&)secret=([\w-]+)/.exec(location.hash);
    const run = /^\/runs\/([^/?#]+)/.exec(location.pathname);
    if (given) localStorage.setItem(TOKEN_KEY, given[1]);
    if (secret && run) localStorage.setItem(secretKey(decodeURIComponent(run[1])), secret[1]);
    if (given || secret) history.replaceState(history.state, '', location.pathname + location.search);
  }
  /** What the page sends with a control for `runId`: the run's own secret if it has it, else serve's token. */
  HA.controlToken = (runId) =>
    HA.controlsOn ? localStorage.getItem(secretKey(runId)) || localStorage.getItem(TOKEN_KEY) : null;
  /** Sends a control for a run; resolves to the server's answer, or throws with its message. */
  HA.sendControl = async (runId, control) => {
    const response = await fetch(`/api/runs/${encodeURIComponent(runId)}/control`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-control-token': HA.controlToken(runId) || '',
      },
      body: JSON.stringify(control),
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body;
  };

  /** A link to a page, as a path in served mode and as a #fragment in a report. */
  HA.href = (pagePath) => (mode === 'report' ? `#${pagePath}` : pagePath);
  HA.route = () => {
    if (mode === 'report') {
      const hash = location.hash.replace(/^#/, '');
      return hash === '' ? '/' : hash;
    }
    return location.pathname + location.search;
  };

  /** The view state in the page's address (`?diff=side&against=3`): kept across a reload and in a shared link. */
  HA.queryParams = () => new URLSearchParams(HA.route().split('?')[1] || '');
  /** Sets (or, with null, removes) one piece of view state in the address, without a new history entry. */
  HA.setQuery = (key, value) => {
    const [pathname, query = ''] = HA.route().split('?');
    const params = new URLSearchParams(query);
    if (value === null || value === undefined || value === '') params.delete(key);
    else params.set(key, String(value));
    const next = params.toString() === '' ? pathname : `${pathname}?${params}`;
    if (mode === 'report') history.replaceState(history.state, '', `#${next}`);
    else history.replaceState(history.state, '', next + location.hash);
  };

  /**
   * Goes to `pagePath` as a new history entry (back returns to the page as it was) and draws it: a view
   * whose state is in its address changes that way.
   */
  HA.navigate = (pagePath) => {
    if (mode === 'report') location.hash = pagePath;
    else {
      history.pushState(null, '', pagePath + location.hash);
      window.dispatchEvent(new PopStateEvent('popstate'));
    }
  };

  /** Makes an element. Children: nodes, strings (as text), arrays, null/false (skipped). */
  HA.h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
  HA.s = (tag, attrs, ...children) =>
    build(document.createElementNS('http://www.w3.org/2000/svg', tag), attrs, children);
  const build = (el, attrs, children) => {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
      else if (key === 'text') el.textContent = String(value);
      else el.setAttribute(key, String(value));
    }
    append(el, children);
    return el;
  };
  /** Replaces the content of `el` with `children` (same rules as HA.h). */
  HA.fill = (el, ...children) => {
    el.replaceChildren();
    append(el, children);
    return el;
  };
  /**
   * Like HA.fill, but leaves `el` untouched when its content would come out the same: a live update then
   * keeps the hover, focus and selection of what did not change.
   */
  HA.patch = (el, ...children) => {
    const next = document.createElement(el.tagName === 'TBODY' ? 'tbody' : 'div');
    append(next, children);
    if (next.innerHTML !== el.innerHTML) el.replaceChildren(...next.childNodes);
    return el;
  };
  /**
   * Runs `change` (which edits the page) so that what the reader is looking at stays where it is on the
   * screen: the element at the top of the window, or its nearest ancestor still on the page afterwards, is
   * put back at the height it was by scrolling by the difference.
   */
  HA.holdScroll = (change) => {
    const bar = document.getElementById('live-bar');
    const y = (bar && !bar.hidden ? bar.getBoundingClientRect().bottom : 0) + 4;
    // The elements at height y, from the page's outermost down to the innermost, innermost first.
    const chain = [];
    for (let at = document.getElementById('app'); at; ) {
      const next = [...at.children].find((c) => {
        const r = c.getBoundingClientRect();
        return r.top <= y && r.bottom > y;
      });
      if (!next) break;
      chain.unshift([next, next.getBoundingClientRect().top]);
      at = next;
    }
    change();
    const kept = chain.find(([el]) => el.isConnected);
    if (kept) window.scrollBy(0, kept[0].getBoundingClientRect().top - kept[1]);
  };
  const append = (el, children) => {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) append(el, child);
      else if (child instanceof Node) el.appendChild(child);
      else el.appendChild(document.createTextNode(String(child)));
    }
  };

  HA.score = (s) => (s === null || s === undefined ? '–' : s.toFixed(3));
  HA.usd = (n) => `$${(n || 0).toFixed(4)}`;
  HA.signed = (n) => `${n >= 0 ? '+' : ''}${n.toFixed(3)}`;
  /**
   * The run's best score, saying which it is: the confirmed one (`--confirm-top`: the mean of fresh attempts)
   * beside the raw score it was ranked by, or the raw score when none was confirmed.
   */
  HA.bestScoreText = (best) =>
    best.confirmed
      ? `${HA.score(best.score)} confirmed (raw ${HA.score(best.rawScore)})`
      : `${HA.score(best.score)} raw (not confirmed)`;
  /**
   * A variant's gain over variant 0 against the run's noise floor (`--noise-floor`), as `archive show` words
   * it; null when the run has no floor or the variant no gain.
   */
  HA.noiseMark = (standing) => {
    if (!standing || standing.noiseFloor === null || standing.gainOverInitial === null) return null;
    if (standing.gainOverInitial <= 0) return null;
    const within = standing.withinNoise;
    return HA.h(
      'span',
      {
        class: within ? 'noise-mark within-noise' : 'noise-mark beyond-noise',
        title: `variant 0 scored ${standing.noiseFloor.scores.map(HA.score).join(', ')} on ${standing.noiseFloor.scores.length} attempts`,
      },
      `${HA.signed(standing.gainOverInitial)} over variant 0, ${within ? 'within noise' : 'beyond the noise floor'} (±${standing.noiseFloor.spread.toFixed(3)})`,
    );
  };
  /** A token count with thousands separated: 12,345. */
  HA.tokens = (n) => (n || 0).toLocaleString('en-US');
  /** A size in bytes, KiB or MiB: 512 bytes, 1.5 KiB. */
  HA.byteSize = (n) =>
    n < 1024
      ? `${n} bytes`
      : n < 1048576
        ? `${(n / 1024).toFixed(1)} KiB`
        : `${(n / 1048576).toFixed(1)} MiB`;
  /** Score to colour: red (0) through amber to green (1); grey when there is none. */
  HA.scoreColor = (s) => (s === null || s === undefined ? '#bbb' : `hsl(${Math.round(s * 120)}, 70%, 45%)`);
  HA.text = (value) =>
    value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

  /** A task input as people read it: the text of a one-field object, else its JSON. */
  HA.inputText = (input) => {
    if (input && typeof input === 'object' && !Array.isArray(input)) {
      const values = Object.values(input);
      if (values.length === 1 && typeof values[0] === 'string') return values[0];
    }
    return HA.text(input);
  };
  HA.badge = (label, kind) => HA.h('span', { class: `badge badge-${kind || label}` }, label);
  HA.table = (header, rows, attrs) =>
    HA.h(
      'table',
      attrs || {},
      HA.h(
        'thead',
        {},
        HA.h(
          'tr',
          {},
          header.map((c) => HA.h('th', {}, c)),
        ),
      ),
      HA.h(
        'tbody',
        {},
        rows.map((r) =>
          HA.h(
            'tr',
            {},
            r.map((c) => HA.h('td', {}, c)),
          ),
        ),
      ),
    );
  HA.section = (title, ...children) => HA.h('section', {}, HA.h('h2', {}, title), ...children);

  /** The score of a variant as the filters ask: the stored selection score, or one domain and split. */
  HA.pickScore = (variant, filter) => {
    if (!filter || filter.domain === '') return variant.score;
    if (variant.score === null) return null;
    const s = variant.scores[filter.domain] && variant.scores[filter.domain][filter.split];
    return s ? s.score : null;
  };
  HA.bestSoFar = (values) => {
    let best = null;
    return values.map((v) => {
      if (v !== null && v !== undefined && (best === null || v > best)) best = v;
      return best;
    });
  };
  HA.lineage = (variants, id) => {
    const byId = new Map(variants.map((v) => [v.id, v]));
    const path = [];
    let at = byId.get(id);
    while (at && !path.includes(at.id)) {
      path.unshift(at.id);
      at = at.parent === null ? undefined : byId.get(at.parent);
    }
    return path;
  };

  /**
   * A run's spend per generation after a live update: the page's points before the update's `spendFrom`,
   * then the update's (which carry the running total), calls of no generation first.
   */
  HA.mergeSpend = (known, update) => [
    ...update.spend.filter((s) => s.generation === null),
    ...known.filter((s) => s.generation !== null && s.generation < update.spendFrom),
    ...update.spend.filter((s) => s.generation !== null),
  ];

  // Page paths and the pieces every page header uses.
  HA.runPath = (id) => `/runs/${encodeURIComponent(id)}`;
  HA.variantPath = (run, id) => `${HA.runPath(run)}/variants/${id}`;
  HA.stateBadge = (state) => HA.badge(state, state);
  HA.simBadge = (run) => (run.simulated ? HA.badge('simulated', 'sim') : null);

  /** The trail above a page: all runs / the run / `here`. */
  HA.crumbs = (runId, here) =>
    HA.h(
      'p',
      { class: 'crumbs' },
      HA.h('a', { href: HA.href('/') }, 'runs'),
      ' / ',
      HA.h('a', { href: HA.href(HA.runPath(runId)) }, runId),
      ' / ',
      here,
    );
}
