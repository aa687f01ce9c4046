// A variant page's Change section: its diff against another variant of the run (its parent first), line by
// line or side by side, highlighted by file type, and the link comparing their tasks.

{
  const HA = window.HA;
  const { h, runPath } = HA;

  /** How a diff is laid out: `line` (one column) or `side` (side by side); in the address as ?diff=. */
  const diffLayout = () => (HA.queryParams().get('diff') === 'side' ? 'side' : 'line');

  /**
   * The diff, its code highlighted by file type (TypeScript, JavaScript, JSON, Markdown, Python, shell; other
   * files stay plain). diff2html escapes the patch text it renders, and highlights the text of each line.
   */
  const diffView = (patch) => {
    const box = h('div', { class: 'diff', id: 'diff' });
    if (patch === '') {
      box.appendChild(h('p', {}, 'No change.'));
      return box;
    }
    const ui = new Diff2HtmlUI(
      box,
      patch,
      {
        drawFileList: true,
        fileListToggle: false,
        fileContentToggle: false,
        synchronisedScroll: true,
        highlight: true,
        outputFormat: diffLayout() === 'side' ? 'side-by-side' : 'line-by-line',
        matching: 'lines',
      },
      window.hljs,
    );
    ui.draw();
    return box;
  };

  /** The diff against another variant (its parent first), and the link comparing their tasks. */
  // Over 80 lines: the panel's picker, diff and links share the variant shown against.
  HA.changePanel = (runId, v, others) => {
    const diffBox = h('div', {}, h('p', { class: 'muted' }, 'Loading the diff…'));
    let shown = null;
    const showDiff = async (from) => {
      shown = from;
      try {
        const fromVariant = others.find((o) => o.id === from);
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
    const rest = others.filter((o) => o.id !== v.id);
    const picker = h(
      'select',
      {
        id: 'diff-against',
        onchange: (e) => {
          const from = Number(e.target.value);
          HA.setQuery('against', from === v.parent ? null : from);
          showDiff(from);
        },
      },
      rest.map((o) =>
        h(
          'option',
          { value: o.id, selected: o.id === v.parent ? 'selected' : null },
          `variant ${o.id} (${o.outcome}, ${HA.score(o.score)})${o.id === v.parent ? ' — parent' : ''}`,
        ),
      ),
    );
    const layoutPick = h(
      'select',
      {
        id: 'diff-layout',
        'aria-label': 'diff layout',
        onchange: (e) => {
          HA.setQuery('diff', e.target.value === 'side' ? 'side' : null);
          showDiff(shown);
        },
      },
      h('option', { value: 'line', selected: diffLayout() === 'line' ? 'selected' : null }, 'line by line'),
      h('option', { value: 'side', selected: diffLayout() === 'side' ? 'selected' : null }, 'side by side'),
    );
    // The variant the address names (?against=), if it is one of this run's; else the parent.
    const asked = Number(HA.queryParams().get('against'));
    const against = rest.some((o) => o.id === asked) ? asked : v.parent;
    picker.value = against === null ? picker.value : String(against);
    const comparePick = h(
      'select',
      { id: 'compare-with' },
      rest.map((o) =>
        h('option', { value: o.id, selected: o.id === v.parent ? 'selected' : null }, `variant ${o.id}`),
      ),
    );
    const compareLink = h('a', { class: 'button', href: '#' }, 'Compare tasks');
    const setCompare = () =>
      compareLink.setAttribute('href', HA.href(`${runPath(runId)}/compare/${v.id}/${comparePick.value}`));
    comparePick.addEventListener('change', setCompare);
    setCompare();
    const panel = HA.section(
      'Change',
      h('p', {}, 'Diff against ', picker, ' ', layoutPick, ' · ', comparePick, ' ', compareLink),
      diffBox,
    );
    return { panel, showDiff, against };
  };
}
