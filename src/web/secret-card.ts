/**
 * The secret cards on the team page — the HTML, stylesheet and script fragments `page.ts` adds
 * (its own section, its own script scope, so the rest of the page is untouched).
 *
 * For every open request (`GET /bot-team/api/secrets`) a card names the Bot, the variable and the
 * purpose and takes the value outside any chat: a text input masked by CSS (not `type=password`
 * and not in a `<form>`, with `autocomplete=off` and the ignore attributes of the common password
 * managers, so none offers to fill or save it), "this Bot" / "all Bots", Save and Cancel. It says
 * plainly that a scope decides whose shell gets the value, not who can read files, and warns when
 * the page is neither on loopback nor HTTPS (the value would cross the network in clear). The
 * saved secrets are listed (name, scope, last used — never a value) with Delete. Changes need this
 * browser paired (the pairing token from localStorage goes in the `x-bot-team-pairing` header);
 * the value is cleared from the input once sent. English and Chinese strings.
 *
 * DOM contract (the tests read it): `#secrets`, `#secret-insecure` (shown when not safe),
 * `#secret-cards` with one `.secret-card[data-request-id]` per request holding `.secret-value`,
 * `input[name^=scope-][value=bot|all]`, `.secret-save`, `.secret-cancel`, `.secret-error`;
 * `#secret-list` with one `li[data-name]` per saved secret.
 *
 * Deliberately narrow: presentation only; every check is the API's. Refreshes every 5 s while the
 * page is visible (a card appears without reloading).
 */

export const SECRET_CARD_HTML = `<section id="secrets">
<h2 id="secrets-title">Secrets</h2>
<p id="secret-insecure" class="problem" hidden></p>
<p id="secret-scope-note" class="muted"></p>
<div id="secret-cards"></div>
<ul id="secret-list"></ul>
</section>
`

export const SECRET_CARD_CSS = `.secret-card { border: 1px solid #c9d2e0; border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; }
.secret-value { -webkit-text-security: disc; text-security: disc; font-family: ui-monospace, monospace; width: 100%; box-sizing: border-box; }
.secret-card label { margin-right: 1rem; }
.secret-error { color: #b42318; }
#secret-list button { margin-left: .5rem; }
`

export const SECRET_CARD_JS = `(function () {
  'use strict';
  var zh = /^zh/i.test(navigator.language || '');
  var t = zh
    ? { title: '密钥', asks: function (bot, v, p) { return bot + ' 请求 $' + v + '：' + p; }, exists: '此名称已保存；保存会替换它唯一的值（所有拥有它的机器人）。', thisBot: '仅此机器人', allBots: '所有机器人', save: '保存', cancel: '取消', value: '值（不会显示在聊天里）',
        scopeNote: '范围决定哪些机器人的 shell 环境获得该值，以及模型看到什么；它不是文件权限：任何机器人的 shell 都能读取 DSH_HOME 下的文件。值以未加密的形式保存在 bot/secrets.json（权限 0600）。',
        insecure: '此页面既不在本机地址也不是 HTTPS：输入的值会以明文经过网络。', saved: '已保存的密钥', all: '所有机器人', lastUsed: '最近使用', never: '从未使用', del: '删除', unpaired: '需要先配对此浏览器才能回答。' }
    : { title: 'Secrets', asks: function (bot, v, p) { return bot + ' asks for $' + v + ': ' + p; }, exists: 'This name is saved already: saving replaces its one value (for every Bot that has it).', thisBot: 'This Bot', allBots: 'All Bots', save: 'Save', cancel: 'Cancel', value: 'Value (never shown in the chat)',
        scopeNote: 'The scope decides whose shell environment gets the value and what each model is shown; it is not a file permission: any Bot\\'s shell can read files under DSH_HOME. Values are stored unencrypted in bot/secrets.json (mode 0600).',
        insecure: 'This page is neither on loopback nor HTTPS: a value you enter crosses the network in clear.', saved: 'Saved secrets', all: 'all Bots', lastUsed: 'last used', never: 'never used', del: 'Delete', unpaired: 'Pair this browser first to answer.' };
  var $ = function (id) { return document.getElementById(id); };
  // The page's API client (page.ts defines it before this script runs): one way to call the team API.
  var token = window.botTeamPage.token;
  var api = window.botTeamPage.api;
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function safeOrigin() {
    var h = location.hostname;
    return location.protocol === 'https:' || h === 'localhost' || h === '[::1]' || h === '::1' || /^127\\./.test(h);
  }
  var shown = {};

  function card(r) {
    var box = el('div', 'secret-card');
    box.dataset.requestId = r.id;
    box.appendChild(el('p', '', t.asks(r.bot.name, r.variable, r.purpose)));
    if (r.exists) box.appendChild(el('p', 'muted', t.exists));
    var input = el('input', 'secret-value');
    input.type = 'text';
    input.setAttribute('autocomplete', 'off');
    input.setAttribute('autocapitalize', 'off');
    input.setAttribute('autocorrect', 'off');
    input.setAttribute('spellcheck', 'false');
    input.setAttribute('data-lpignore', 'true');
    input.setAttribute('data-1p-ignore', '');
    input.setAttribute('data-bwignore', '');
    input.setAttribute('data-form-type', 'other');
    input.setAttribute('aria-label', t.value);
    input.placeholder = t.value;
    box.appendChild(input);
    var scopes = el('p');
    [['bot', t.thisBot], ['all', t.allBots]].forEach(function (s, i) {
      var label = el('label');
      var radio = el('input');
      radio.type = 'radio';
      radio.name = 'scope-' + r.id;
      radio.value = s[0];
      radio.checked = i === 0;
      label.appendChild(radio);
      label.appendChild(document.createTextNode(' ' + s[1]));
      scopes.appendChild(label);
    });
    box.appendChild(scopes);
    var error = el('p', 'secret-error');
    error.hidden = true;
    var fail = function (e) { error.textContent = e.message; error.hidden = false; };
    var save = el('button', 'secret-save', t.save);
    save.type = 'button';
    save.addEventListener('click', function () {
      var scope = box.querySelector('input[name="scope-' + r.id + '"]:checked');
      var value = input.value;
      input.value = '';
      api('POST', 'secrets/requests/' + encodeURIComponent(r.id), { value: value, scope: scope ? scope.value : 'bot' }).then(load, fail);
    });
    var cancel = el('button', 'secret-cancel', t.cancel);
    cancel.type = 'button';
    cancel.addEventListener('click', function () { input.value = ''; api('DELETE', 'secrets/requests/' + encodeURIComponent(r.id)).then(load, fail); });
    box.appendChild(save);
    box.appendChild(document.createTextNode(' '));
    box.appendChild(cancel);
    if (!token()) box.appendChild(el('p', 'muted', t.unpaired));
    box.appendChild(error);
    return box;
  }

  function render(s) {
    var cards = $('secret-cards');
    var open = {};
    s.requests.forEach(function (r) {
      open[r.id] = true;
      if (!shown[r.id]) { shown[r.id] = card(r); cards.appendChild(shown[r.id]); }
    });
    Object.keys(shown).forEach(function (id) { if (!open[id]) { shown[id].remove(); delete shown[id]; } });
    var list = $('secret-list');
    list.textContent = '';
    s.secrets.forEach(function (x) {
      var li = el('li', '', x.name + ' ($' + x.variable + ') — ' + (x.scope === 'all' ? t.all : x.scope.bots.map(function (b) { return b.name; }).join(', ')) + ' — ' + (x.lastUsedAt ? t.lastUsed + ' ' + new Date(x.lastUsedAt).toLocaleString() : t.never));
      li.dataset.name = x.name;
      var del = el('button', '', t.del);
      del.type = 'button';
      del.addEventListener('click', function () { api('DELETE', 'secrets/' + encodeURIComponent(x.name)).then(load, function () {}); });
      li.appendChild(del);
      list.appendChild(li);
    });
  }

  function load() { return api('GET', 'secrets').then(render, function () {}); }

  function init() {
    $('secrets-title').textContent = t.title;
    $('secret-scope-note').textContent = t.scopeNote;
    var warn = $('secret-insecure');
    warn.textContent = t.insecure;
    warn.hidden = safeOrigin();
    load();
    setInterval(function () { if (!document.hidden) load(); }, 5000);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
})();
`
