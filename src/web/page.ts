/**
 * The team page served at `/bot-team`: an HTML document plus its own script (`/bot-team/page.js`)
 * and stylesheet (`/bot-team/page.css`) — no build step, no external assets, nothing inline, so the
 * page's Content-Security-Policy (`PAGE_CSP`) can forbid inline script and style. It reads
 * `/bot-team/api/status` and renders the roster, the health of the plugin's parts (a team this
 * process only follows or cannot write says why) and recent activity; and `/bot-team/api/pairing`
 * for the "This browser" section: whether this browser is paired, every paired device with when it
 * paired and was last used (so a stray pairing is visible), pairing by code and unpairing. English
 * and Chinese strings, chosen from the browser's language.
 *
 * DOM contract (the e2e test reads it): `h1`, `#summary[data-state=ready|error]`, `#bots` (one `li`
 * per Bot: `name — role ★`), `#archive`, `#store-problem`, `#archive-problem`, `#activity`; the
 * pairing section is `#pairing` with `#pairing-state[data-state=paired|unpaired|error]`, `#devices`,
 * `#pairing-start`, `#pairing-window`, `#pairing-code-input`, `#pairing-submit`, `#pairing-new-code`, `#pairing-code`;
 * the operations section (issue 16) is `#operations` with `#pause-state[data-state=paused|running]`,
 * `#pause-toggle`, `#diagnostics-download`, `#operations-problem`; settings held for the person's
 * confirmation (a restore's raises, folders from before v4) are `#held` (hidden while there are
 * none) with `#held-list` (one `li[data-held-id]` each, its Confirm and Let go buttons) and `#held-problem`.
 * the secret cards are `#secrets` (`secret-card.ts`, which adds its own HTML, CSS and script).
 *
 * The pairing token lives in this browser's localStorage and is sent as the `x-bot-team-pairing`
 * header on every API call (`pairing.ts` decides what it is worth).
 *
 * Deliberately narrow: presentation only; every fact comes from the API.
 */
import { PAIRING_HEADER } from './pairing.ts'
import { SECRET_CARD_CSS, SECRET_CARD_HTML, SECRET_CARD_JS } from './secret-card.ts'

export const PAGE_SCRIPT_PATH = '/bot-team/page.js'
export const PAGE_STYLE_PATH = '/bot-team/page.css'

/** The page may run only its own script and stylesheet and talk only to this server. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"

export const TEAM_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bot Team</title>
<link rel="stylesheet" href="${PAGE_STYLE_PATH}">
<script src="${PAGE_SCRIPT_PATH}" defer></script>
</head>
<body>
<h1 data-i18n="title">Bot Team</h1>
<p class="muted" id="summary" data-i18n="loading">Loading…</p>
<ul id="bots"></ul>
<div id="problems"></div>
<h2 id="activity-title" hidden></h2>
<ul id="activity"></ul>
${SECRET_CARD_HTML}<section id="pairing">
<h2 id="pairing-title">This browser</h2>
<p id="pairing-state" class="muted"></p>
<p id="pairing-problem" class="problem" hidden></p>
<div id="pairing-actions">
<button type="button" id="pairing-start" hidden></button>
<button type="button" id="pairing-window" hidden></button>
<span id="pairing-form" hidden><input id="pairing-code-input" autocomplete="off" maxlength="16" size="12"> <button type="button" id="pairing-submit"></button></span>
<button type="button" id="pairing-new-code" hidden></button>
<p id="pairing-code" hidden></p>
</div>
<h2 id="devices-title" hidden></h2>
<ul id="devices"></ul>
</section>
<section id="held" hidden>
<h2 id="held-title">Waiting for your confirmation</h2>
<p id="held-note" class="muted"></p>
<p id="held-problem" class="problem" hidden></p>
<ul id="held-list"></ul>
</section>
<section id="backup">
<h2 id="backup-title">Backup</h2>
<label><input type="checkbox" id="backup-secrets"> <span id="backup-secrets-label"></span></label>
<button type="button" id="backup-download"></button>
<p id="backup-state" class="muted" hidden></p>
</section>
<section id="operations">
<h2 id="operations-title">Operations</h2>
<p id="pause-state" class="muted"></p>
<p id="operations-problem" class="problem" hidden></p>
<button type="button" id="pause-toggle" hidden></button>
<button type="button" id="diagnostics-download" hidden></button>
</section>
</body>
</html>
`

export const TEAM_PAGE_CSS = `body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 48rem; padding: 0 1rem; color: #1d2430; }
h1 { font-size: 1.4rem; margin-bottom: .25rem; }
.muted { color: #667085; }
ul { padding-left: 1.2rem; }
.problem { background: #fff4e5; border: 1px solid #f5b971; padding: .5rem .75rem; border-radius: 6px; }
h2 { font-size: 1.05rem; margin-top: 1.5rem; }
code, #pairing-code { font-family: ui-monospace, monospace; }
#pairing-code { font-size: 1.2rem; }
#devices button { margin-left: .5rem; }
${SECRET_CARD_CSS}`

export const TEAM_PAGE_JS = `(function () {
  'use strict';
  var API = '/bot-team/api/';
  var TOKEN_KEY = 'bot-team:pairing-token';
  var zh = /^zh/i.test(navigator.language || '');
  var t = zh
    ? { title: '机器人团队', none: '团队里还没有机器人。', count: function (n) { return '团队共有 ' + n + ' 个机器人。'; }, archive: '归档索引', lines: '行', rebuilding: '正在重建', catchingUp: '正在追赶', caughtUp: '最近索引', failed: '无法读取团队状态：', activity: '最近动态',
        thisBrowser: '此浏览器', paired: '此浏览器已配对，可以更改机器人的权限。', unpairedTerminal: '此浏览器尚未配对。还没有任何浏览器配对：点击“配对此浏览器”，然后输入 DSH 运行所在终端里显示的配对码。', unpairedOther: '此浏览器尚未配对。在已配对的浏览器上点击“配对另一个浏览器”，然后在这里输入显示的配对码。',
        pairWindow: '无终端配对（DSH 桌面版）', start: '配对此浏览器', submit: '配对', newCode: '配对另一个浏览器', codeIs: function (c, until) { return '配对码：' + c + '（有效至 ' + until + '）'; }, shownInTerminal: function (until) { return '配对码已显示在 DSH 运行所在的终端里（有效至 ' + until + '）。'; },
        devices: '已配对的设备', device: function (d, mine) { return d.label + (mine ? '（此浏览器）' : '') + ' — 配对于 ' + new Date(d.createdAt).toLocaleString() + '，最近使用 ' + new Date(d.lastUsedAt).toLocaleString(); }, unpair: '取消配对' }
    : { title: 'Bot Team', none: 'The team has no Bots yet.', count: function (n) { return 'The team has ' + n + ' Bot' + (n === 1 ? '' : 's') + '.'; }, archive: 'Archive index', lines: 'lines', rebuilding: 'rebuilding', catchingUp: 'catching up', caughtUp: 'last indexed', failed: 'Could not read the team status: ', activity: 'Recent activity',
        thisBrowser: 'This browser', paired: 'This browser is paired: it may raise Bots\\' permissions.', unpairedTerminal: 'This browser is not paired, and no browser is yet. Choose "Pair this browser", then type the code shown in the terminal where DSH runs.', unpairedOther: 'This browser is not paired. On a paired browser choose "Pair another browser", then type the code it shows here.',
        pairWindow: 'Pair without a terminal (DSH Desktop)', start: 'Pair this browser', submit: 'Pair', newCode: 'Pair another browser', codeIs: function (c, until) { return 'Pairing code: ' + c + ' (valid until ' + until + ')'; }, shownInTerminal: function (until) { return 'A pairing code is shown in the terminal where DSH runs (valid until ' + until + ').'; },
        devices: 'Paired devices', device: function (d, mine) { return d.label + (mine ? ' (this browser)' : '') + ' — paired ' + new Date(d.createdAt).toLocaleString() + ', last used ' + new Date(d.lastUsedAt).toLocaleString(); }, unpair: 'Unpair' };
  var $ = function (id) { return document.getElementById(id); };

  function token() { try { return localStorage.getItem(TOKEN_KEY); } catch (e) { return null; } }
  function setToken(value) { try { if (value) localStorage.setItem(TOKEN_KEY, value); else localStorage.removeItem(TOKEN_KEY); } catch (e) { /* storage off: pairing cannot last */ } }
  function api(method, path, body) {
    var headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    var tok = token();
    if (tok) headers['${PAIRING_HEADER}'] = tok;
    return fetch(API + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (r) { return r.json().catch(function () { return {}; }).then(function (j) { if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status)); return j; }); });
  }
  function show(el, on) { el.hidden = !on; }
  // The page's one API client, shared with the secret card's script (secret-card.ts) that follows.
  window.botTeamPage = { api: api, token: token };
  function time(iso) { return new Date(iso).toLocaleTimeString(); }

  function renderStatus(s) {
    var summary = $('summary');
    summary.textContent = s.bots.length ? t.count(s.bots.length) : t.none;
    summary.dataset.state = 'ready';
    var list = $('bots');
    s.bots.forEach(function (b) {
      var li = document.createElement('li');
      li.textContent = b.name + (b.role ? ' — ' + b.role : '') + (b.main ? ' ★' : '');
      list.appendChild(li);
    });
    var archive = document.createElement('p');
    archive.id = 'archive';
    archive.textContent = t.archive + ': ' + s.archive.driver;
    $('problems').appendChild(archive);
    if (typeof s.archive.lines === 'number') {
      var state = document.createElement('p');
      state.id = 'archive-state';
      var bits = [s.archive.lines.toLocaleString() + ' ' + t.lines, (s.archive.fileBytes / 1048576).toFixed(1) + ' MB'];
      if (s.archive.rebuilding) bits.push(t.rebuilding);
      else if (s.archive.catchingUp) bits.push(t.catchingUp);
      if (s.archive.lastCatchUp) bits.push(t.caughtUp + ' ' + new Date(s.archive.lastCatchUp).toLocaleTimeString());
      state.textContent = bits.join(' · ');
      $('problems').appendChild(state);
    }
    var problems = [];
    if (s.store && s.store.mode !== 'writer') problems.push({ id: 'store-problem', text: s.store.message });
    if (s.archive.problem) problems.push({ id: 'archive-problem', text: s.archive.problem.message });
    problems.forEach(function (item) {
      var p = document.createElement('p');
      p.className = 'problem';
      p.id = item.id;
      p.textContent = item.text;
      $('problems').appendChild(p);
    });
    var recent = (s.activity || []).slice(-10).reverse();
    if (recent.length) {
      var heading = $('activity-title');
      heading.textContent = t.activity;
      heading.hidden = false;
      recent.forEach(function (a) {
        var li = document.createElement('li');
        li.textContent = time(a.at) + ' — ' + a.text;
        $('activity').appendChild(li);
      });
    }
  }

  function pairingError(e) {
    var p = $('pairing-problem');
    p.textContent = e.message;
    show(p, true);
  }

  function renderPairing(p) {
    if (!p.paired && token() && !p.problem) setToken(null); // unpaired, or the file was deleted (a broken file keeps it)
    var state = $('pairing-state');
    state.dataset.state = p.paired ? 'paired' : 'unpaired';
    state.textContent = p.paired ? t.paired : (p.nextPairing === 'terminal' ? t.unpairedTerminal : t.unpairedOther);
    show($('pairing-problem'), !!p.problem);
    if (p.problem) $('pairing-problem').textContent = p.problem;
    show($('pairing-start'), !p.paired && p.nextPairing === 'terminal');
    show($('pairing-window'), !p.paired && p.window === true);
    show($('pairing-form'), !p.paired && p.nextPairing !== 'terminal');
    show($('pairing-new-code'), p.paired);
    var list = $('devices');
    list.textContent = '';
    show($('devices-title'), p.devices.length > 0);
    p.devices.forEach(function (d) {
      var li = document.createElement('li');
      li.dataset.deviceId = d.id;
      li.appendChild(document.createTextNode(t.device(d, d.id === p.deviceId)));
      if (p.paired) {
        var b = document.createElement('button');
        b.type = 'button';
        b.textContent = t.unpair;
        b.addEventListener('click', function () { api('DELETE', 'pairing/devices/' + encodeURIComponent(d.id)).then(loadPairing, pairingError); });
        li.appendChild(b);
      }
      list.appendChild(li);
    });
  }

  function loadPairing() {
    return api('GET', 'pairing').then(renderPairing, function (e) { $('pairing-state').dataset.state = 'error'; pairingError(e); });
  }

  // Backup download (POST /bot-team/api/backup, paired page only; see backup-routes.ts).
  function initBackup() {
    var s = zh ? { title: '备份', secrets: '包含已保存的密钥', download: '下载备份', working: '正在打包…', done: '备份已下载。' }
      : { title: 'Backup', secrets: 'Include saved secrets', download: 'Download a backup', working: 'Packing…', done: 'Backup downloaded.' };
    $('backup-title').textContent = s.title;
    $('backup-secrets-label').textContent = s.secrets;
    $('backup-download').textContent = s.download;
    $('backup-download').addEventListener('click', function () {
      var state = $('backup-state');
      state.textContent = s.working; state.dataset.state = 'working'; show(state, true);
      var headers = { 'content-type': 'application/json' };
      var tok = token();
      if (tok) headers['${PAIRING_HEADER}'] = tok;
      fetch(API + 'backup', { method: 'POST', headers: headers, body: JSON.stringify({ secrets: $('backup-secrets').checked }) }).then(function (r) {
        if (!r.ok) return r.json().catch(function () { return {}; }).then(function (j) { throw new Error(j.error || ('HTTP ' + r.status)); });
        var name = (/filename="([^"]+)"/.exec(r.headers.get('content-disposition') || '') || [])[1] || 'bot-team-backup.dshbt';
        return r.blob().then(function (b) {
          var a = document.createElement('a');
          a.href = URL.createObjectURL(b); a.download = name;
          document.body.appendChild(a); a.click();
          setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
          state.textContent = s.done; state.dataset.state = 'done';
        });
      }).catch(function (e) { state.textContent = e.message; state.dataset.state = 'error'; });
    });
  }

  // Operations (issue 16): the pause switch and the diagnostics download; both need a paired browser.
  var ops = zh
    ? { title: '运维', running: '团队正在运行。', paused: function (p) { return '团队已暂停（' + new Date(p.at).toLocaleString() + (p.reason ? '：' + p.reason : '') + '）。机器人发起的工作会保留，恢复后按顺序继续；你自己的提问照常进行。'; }, pause: '暂停团队', resume: '恢复', download: '下载诊断日志', needsPairing: '暂停、恢复和下载诊断日志需要已配对的浏览器。' }
    : { title: 'Operations', running: 'The team is running.', paused: function (p) { return 'The team is paused (since ' + new Date(p.at).toLocaleString() + (p.reason ? ': ' + p.reason : '') + '). Bot-started work is held and resumes in order; your own prompts still work.'; }, pause: 'Pause the team', resume: 'Resume', download: 'Download diagnostics', needsPairing: 'Pausing, resuming and the diagnostics download need a paired browser.' };

  function opsError(e) { var p = $('operations-problem'); p.textContent = e.message; show(p, true); }

  function renderPause(r) {
    var state = $('pause-state');
    state.dataset.state = r.paused ? 'paused' : 'running';
    state.textContent = r.paused ? ops.paused(r.paused) : ops.running;
    var toggle = $('pause-toggle');
    toggle.textContent = r.paused ? ops.resume : ops.pause;
    toggle.dataset.paused = r.paused ? 'true' : 'false';
    show(toggle, true);
    show($('diagnostics-download'), true);
  }

  function loadPause() { return api('GET', 'pause').then(renderPause, opsError); }

  function initOperations() {
    $('operations-title').textContent = ops.title;
    $('diagnostics-download').textContent = ops.download;
    $('pause-toggle').addEventListener('click', function () {
      if (!token()) return opsError(new Error(ops.needsPairing));
      var pausing = $('pause-toggle').dataset.paused !== 'true';
      api('PUT', 'pause', { paused: pausing }).then(function (r) { show($('operations-problem'), false); renderPause(r); }, opsError);
    });
    $('diagnostics-download').addEventListener('click', function () {
      var headers = {};
      var tok = token();
      if (!tok) return opsError(new Error(ops.needsPairing));
      headers['${PAIRING_HEADER}'] = tok;
      fetch(API + 'diagnostics?download=1', { headers: headers }).then(function (r) {
        if (!r.ok) return r.json().catch(function () { return {}; }).then(function (j) { throw new Error(j.error || ('HTTP ' + r.status)); });
        return r.blob().then(function (blob) {
          var a = document.createElement('a');
          a.href = URL.createObjectURL(blob);
          a.download = 'bot-team-diagnostics.jsonl';
          document.body.appendChild(a);
          a.click();
          setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
        });
      }).catch(opsError);
    });
    loadPause();
  }

  // Settings held for the person's confirmation (GET /held; confirming or letting go needs a paired browser).
  var held = zh
    ? { title: '等待你确认', note: '恢复的备份（或升级前设置的工作文件夹）中提高机器人权限的设置，在你确认之前保持降低状态。', confirm: '确认', dismiss: '放弃', needsPairing: '确认需要已配对的浏览器。' }
    : { title: 'Waiting for your confirmation', note: 'Settings of a restored backup (or working folders set before an upgrade) that raise the authority of a Bot stay lowered until you confirm them.', confirm: 'Confirm', dismiss: 'Let go', needsPairing: 'Confirming needs a paired browser.' };
  function heldError(e) { var p = $('held-problem'); p.textContent = e.message; show(p, true); }
  function renderHeld(r) {
    var list = $('held-list');
    list.textContent = '';
    show($('held'), r.held.length > 0);
    r.held.forEach(function (item) {
      var li = document.createElement('li');
      li.dataset.heldId = item.id;
      li.appendChild(document.createTextNode(item.text + ' '));
      [['confirm', held.confirm], ['dismiss', held.dismiss]].forEach(function (pair) {
        var b = document.createElement('button');
        b.type = 'button';
        b.dataset.action = pair[0];
        b.textContent = pair[1];
        b.addEventListener('click', function () {
          if (!token()) return heldError(new Error(held.needsPairing));
          api('POST', 'held/' + encodeURIComponent(item.id) + '/' + pair[0], {}).then(function (res) { show($('held-problem'), false); renderHeld(res); }, heldError);
        });
        li.appendChild(b);
      });
      list.appendChild(li);
    });
  }
  function initHeld() {
    $('held-title').textContent = held.title;
    $('held-note').textContent = held.note;
    api('GET', 'held').then(renderHeld, heldError);
  }

  function init() {
    initBackup();
    initHeld();
    document.documentElement.lang = zh ? 'zh' : 'en';
    document.title = t.title;
    document.querySelector('h1').textContent = t.title;
    $('pairing-title').textContent = t.thisBrowser;
    $('devices-title').textContent = t.devices;
    $('pairing-start').textContent = t.start;
    $('pairing-window').textContent = t.pairWindow;
    // The one-time pairing window (no browser paired yet; every chat idle): open it, then claim it.
    $('pairing-window').addEventListener('click', function () {
      api('POST', 'pairing/window', {}).then(function (w) { return api('POST', 'pairing', { window: w.window }); }).then(function (r) {
        setToken(r.token);
        show($('pairing-problem'), false);
        loadPairing();
      }, pairingError);
    });
    $('pairing-submit').textContent = t.submit;
    $('pairing-new-code').textContent = t.newCode;
    $('pairing-start').addEventListener('click', function () {
      api('POST', 'pairing/codes', {}).then(function (g) {
        var c = $('pairing-code');
        c.textContent = t.shownInTerminal(time(g.expiresAt));
        show(c, true);
        show($('pairing-form'), true);
      }, pairingError);
    });
    $('pairing-submit').addEventListener('click', function () {
      api('POST', 'pairing', { code: $('pairing-code-input').value }).then(function (r) {
        setToken(r.token);
        $('pairing-code-input').value = '';
        show($('pairing-code'), false);
        show($('pairing-problem'), false);
        return loadPairing();
      }, pairingError);
    });
    $('pairing-new-code').addEventListener('click', function () {
      api('POST', 'pairing/codes', {}).then(function (g) {
        var c = $('pairing-code');
        c.textContent = t.codeIs(g.code, time(g.expiresAt));
        show(c, true);
      }, pairingError);
    });
    api('GET', 'status').then(renderStatus).catch(function (e) { $('summary').textContent = t.failed + e.message; $('summary').dataset.state = 'error'; });
    loadPairing();
    initOperations();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
})();
${SECRET_CARD_JS}`
