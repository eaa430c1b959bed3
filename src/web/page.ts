/**
 * The team page served at `/bot-team`: a single self-contained HTML document (no build step, no
 * external assets) that reads `/bot-team/api/status` and renders the roster, the health of the
 * plugin's parts (a team this process only follows or cannot write says why) and recent activity. English and Chinese strings, chosen from the browser's language.
 *
 * Deliberately narrow: presentation only; every fact comes from the status route.
 */
export const TEAM_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bot Team</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 48rem; padding: 0 1rem; color: #1d2430; }
  h1 { font-size: 1.4rem; margin-bottom: .25rem; }
  .muted { color: #667085; }
  ul { padding-left: 1.2rem; }
  .problem { background: #fff4e5; border: 1px solid #f5b971; padding: .5rem .75rem; border-radius: 6px; }
  h2 { font-size: 1.05rem; margin-top: 1.5rem; }
  code { background: #f2f4f7; padding: 0 .25rem; border-radius: 3px; }
</style>
</head>
<body>
<h1 data-i18n="title">Bot Team</h1>
<p class="muted" id="summary" data-i18n="loading">Loading…</p>
<ul id="bots"></ul>
<div id="problems"></div>
<h2 id="activity-title" hidden></h2>
<ul id="activity"></ul>
<script>
(function () {
  var zh = /^zh/i.test(navigator.language || '');
  var t = zh
    ? { title: '机器人团队', none: '团队里还没有机器人。', count: function (n) { return '团队共有 ' + n + ' 个机器人。'; }, archive: '归档索引', lines: '行', rebuilding: '正在重建', catchingUp: '正在追赶', caughtUp: '最近索引', failed: '无法读取团队状态：', activity: '最近动态' }
    : { title: 'Bot Team', none: 'The team has no Bots yet.', count: function (n) { return 'The team has ' + n + ' Bot' + (n === 1 ? '' : 's') + '.'; }, archive: 'Archive index', lines: 'lines', rebuilding: 'rebuilding', catchingUp: 'catching up', caughtUp: 'last indexed', failed: 'Could not read the team status: ', activity: 'Recent activity' };
  document.documentElement.lang = zh ? 'zh' : 'en';
  document.title = t.title;
  document.querySelector('h1').textContent = t.title;
  var summary = document.getElementById('summary');
  fetch(location.pathname.replace(/\\/?$/, '/') + 'api/status', { headers: { accept: 'application/json' } })
    .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
    .then(function (s) {
      summary.textContent = s.bots.length ? t.count(s.bots.length) : t.none;
      summary.dataset.state = 'ready';
      var list = document.getElementById('bots');
      s.bots.forEach(function (b) {
        var li = document.createElement('li');
        li.textContent = b.name + (b.role ? ' — ' + b.role : '') + (b.main ? ' ★' : '');
        list.appendChild(li);
      });
      var archive = document.createElement('p');
      archive.id = 'archive';
      archive.textContent = t.archive + ': ' + s.archive.driver;
      document.getElementById('problems').appendChild(archive);
      if (typeof s.archive.lines === 'number') {
        var state = document.createElement('p');
        state.id = 'archive-state';
        var bits = [s.archive.lines.toLocaleString() + ' ' + t.lines, (s.archive.fileBytes / 1048576).toFixed(1) + ' MB'];
        if (s.archive.rebuilding) bits.push(t.rebuilding);
        else if (s.archive.catchingUp) bits.push(t.catchingUp);
        if (s.archive.lastCatchUp) bits.push(t.caughtUp + ' ' + new Date(s.archive.lastCatchUp).toLocaleTimeString());
        state.textContent = bits.join(' · ');
        document.getElementById('problems').appendChild(state);
      }
      var problems = [];
      if (s.store && s.store.mode !== 'writer') problems.push({ id: 'store-problem', text: s.store.message });
      if (s.archive.problem) problems.push({ id: 'archive-problem', text: s.archive.problem.message });
      problems.forEach(function (item) {
        var p = document.createElement('p');
        p.className = 'problem';
        p.id = item.id;
        p.textContent = item.text;
        document.getElementById('problems').appendChild(p);
      });
      var recent = (s.activity || []).slice(-10).reverse();
      if (recent.length) {
        var heading = document.getElementById('activity-title');
        heading.textContent = t.activity;
        heading.hidden = false;
        recent.forEach(function (a) {
          var li = document.createElement('li');
          li.textContent = new Date(a.at).toLocaleTimeString() + ' — ' + a.text;
          document.getElementById('activity').appendChild(li);
        });
      }
    })
    .catch(function (e) { summary.textContent = t.failed + e.message; summary.dataset.state = 'error'; });
})();
</script>
</body>
</html>
`
