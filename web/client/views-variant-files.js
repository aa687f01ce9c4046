// A variant's whole code at its commit: its files, listed when opened, one shown when picked.

{
  const HA = window.HA;
  const { h, variantPath } = HA;

  HA.filesPanel = (runId, v) => {
    if (!v.commit) return null;
    if (HA.mode !== 'serve')
      return HA.section('Files', h('p', { class: 'muted' }, 'Run hyperagents serve to read its files.'));
    const api = `${variantPath(runId, v.id)}`;
    const view = h('div', { id: 'file-view' });
    const show = async (file) => {
      try {
        const got = await HA.get(`${api}/file?path=${encodeURIComponent(file)}`);
        HA.fill(
          view,
          h('p', { class: 'muted' }, `${got.path} (${HA.byteSize(got.bytes)})`),
          got.text === null ? h('p', {}, got.note) : h('pre', { class: 'file-text' }, got.text),
        );
        view.scrollIntoView();
      } catch (error) {
        HA.fill(view, h('p', { class: 'error' }, error.message));
      }
    };
    const list = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
    const panel = h(
      'details',
      { id: 'files' },
      h('summary', {}, `Its files at commit ${v.commit.slice(0, 10)}`),
      list,
      view,
    );
    let loaded = false;
    panel.addEventListener('toggle', async () => {
      if (!panel.open || loaded) return;
      loaded = true;
      try {
        const got = await HA.get(`${api}/files`);
        HA.fill(
          list,
          h(
            'ul',
            { class: 'file-list' },
            got.files.map((f) =>
              h(
                'li',
                {},
                h(
                  'a',
                  {
                    href: '#file-view',
                    onclick: (e) => {
                      e.preventDefault();
                      show(f.path);
                    },
                  },
                  f.path,
                ),
                ` ${HA.byteSize(f.bytes)}`,
              ),
            ),
          ),
          got.cut ? h('p', { class: 'muted' }, 'Only the first files are listed.') : null,
        );
      } catch (error) {
        HA.fill(list, h('p', { class: 'error' }, error.message));
      }
    });
    return HA.section('Files', panel);
  };
}
