/**
 * The client half's stylesheet, injected once as `<style data-plugin="dsh-bot-team">` (DSH Web
 * sets no CSP). Colours come from DSH's `--dsw-alias-*` theme variables, so light and dark follow
 * DSH; a Bot's own colour is used only for its avatar.
 */
export const CSS = `
.bt-side{display:flex;flex-direction:column;gap:2px;padding:4px 8px;font-size:13px;color:var(--dsw-alias-label-primary,#111);overflow:auto;min-height:0}
.bt-head{display:flex;align-items:center;gap:6px;margin:4px 0 6px}
.bt-head h2{flex:1;margin:0;font-size:13px;font-weight:600}
.bt-btn{border:1px solid var(--dsw-alias-border-l2,#bbb);background:transparent;color:inherit;border-radius:8px;padding:3px 8px;font-size:12px;cursor:pointer}
.bt-btn:hover,.bt-row:hover{background:var(--dsw-alias-interactive-bg-hover,rgba(127,127,127,.12))}
.bt-btn:focus-visible,.bt-row:focus-visible{outline:2px solid #4d6bfe;outline-offset:1px}
.bt-btn.primary{background:#3b5bdb;border-color:#3b5bdb;color:#fff}
.bt-btn.danger{border-color:#c92a2a;color:#c92a2a}
.bt-sec{margin:8px 0 2px;font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--dsw-alias-label-secondary,#555)}
.bt-item{display:flex;align-items:center;gap:4px}
.bt-row{flex:1;min-width:0;display:flex;align-items:center;gap:8px;padding:5px 6px;border:0;border-radius:8px;background:transparent;color:inherit;text-align:left;cursor:pointer;font-size:13px}
.bt-who{flex:1;min-width:0;display:flex;flex-direction:column}
.bt-who b{font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.bt-who small{color:var(--dsw-alias-label-secondary,#555);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.bt-av{flex:none;display:inline-flex;align-items:center;justify-content:center;width:24px;height:24px;border-radius:50%;color:#fff;font-size:11px;font-weight:700}
.bt-av.square{border-radius:5px}.bt-av.diamond{border-radius:4px;transform:rotate(45deg)}.bt-av.diamond>span{transform:rotate(-45deg)}
.bt-st{flex:none;font-size:11px;padding:1px 6px;border-radius:9px;border:1px solid var(--dsw-alias-border-l2,#bbb);color:var(--dsw-alias-label-secondary,#444)}
.bt-st.working{border-color:#2b8a3e;color:#2b8a3e}.bt-st.queued{border-color:#e67700;color:#a35200}.bt-st.read-only,.bt-st.follower{border-color:#868e96}
.bt-note{display:block;padding:6px;border-radius:8px;font-size:12px;color:var(--dsw-alias-label-secondary,#444);background:rgba(127,127,127,.08)}
.bt-problem{display:block;padding:6px;border-radius:8px;font-size:12px;border:1px solid #e03131;color:var(--dsw-alias-label-primary,#111);margin:4px 0}
.bt-switch{display:flex;gap:4px;padding:4px 8px}
.bt-dialog-back{position:fixed;inset:0;z-index:1000;background:rgba(0,0,0,.35);display:flex;align-items:center;justify-content:center}
.bt-dialog{width:min(480px,92vw);max-height:88vh;overflow:auto;padding:16px 18px;border-radius:14px;background:var(--dsw-alias-button-elevated-fill,#fff);color:var(--dsw-alias-label-primary,#111);border:1px solid var(--dsw-alias-border-l2,#ccc);box-shadow:0 8px 28px rgba(0,0,0,.25);font-size:13px}
.bt-dialog h2{margin:0 0 10px;font-size:16px}
.bt-field{display:flex;flex-direction:column;gap:3px;margin-bottom:9px}
.bt-field input,.bt-field textarea,.bt-field select{font:inherit;padding:5px 7px;border-radius:7px;border:1px solid var(--dsw-alias-border-l2,#bbb);background:transparent;color:inherit}
.bt-field.check{flex-direction:row;align-items:center;gap:6px}
.bt-err{color:#c92a2a;font-size:12px}
.bt-hint{font-size:11px;color:var(--dsw-alias-label-secondary,#555)}
.bt-limits{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:0 16px}
.bt-limits .bt-field label{min-height:2.4em;display:flex;align-items:flex-end}
.bt-actions{display:flex;gap:8px;justify-content:flex-end;margin-top:10px}
.bt-line{margin:6px 0;padding:8px 12px;border-radius:12px;border-left:3px solid var(--bt-colour,#4d6bfe);background:rgba(127,127,127,.07);color:var(--dsw-alias-label-primary,#111)}
.bt-line header{display:flex;align-items:center;gap:6px;font-size:12px;font-weight:600;margin-bottom:4px;color:var(--dsw-alias-label-secondary,#444)}
.bt-line .bt-body{white-space:pre-wrap;font-size:14px}
.bt-quiet{margin:4px 0;font-size:12px;color:var(--dsw-alias-label-secondary,#555);text-align:center}
.bt-log{width:100%;border-collapse:collapse;font-size:12px}.bt-log th,.bt-log td{text-align:left;padding:4px 6px;border-bottom:1px solid var(--dsw-alias-border-l2,#ddd)}
.bt-secrets{position:fixed;right:16px;bottom:16px;z-index:999;width:min(380px,92vw);max-height:80vh;overflow:auto;display:flex;flex-direction:column;gap:8px}
.bt-secret{padding:12px 14px;border-radius:12px;background:var(--dsw-alias-button-elevated-fill,#fff);color:var(--dsw-alias-label-primary,#111);border:1px solid var(--dsw-alias-border-l2,#ccc);box-shadow:0 6px 20px rgba(0,0,0,.2);font-size:13px}
.bt-secret h3{margin:0 0 4px;font-size:14px}.bt-secret p{margin:4px 0}
.bt-secret-value{-webkit-text-security:disc;text-security:disc;font-family:ui-monospace,monospace;width:100%;box-sizing:border-box;padding:5px 7px;border-radius:7px;border:1px solid var(--dsw-alias-border-l2,#bbb);background:transparent;color:inherit}
.bt-secret-scope{border:0;padding:0;margin:6px 0;display:flex;gap:12px}.bt-secret-scope legend{padding:0;margin-bottom:2px;font-size:12px}
.bt-sec-row{display:flex;align-items:center;gap:6px}.bt-sec-row .bt-sec{flex:1}
.bt-members{border:0;padding:0;margin:0 0 9px}.bt-members legend{padding:0;margin-bottom:3px}
.bt-members ol{margin:4px 0;padding:0;list-style:none}.bt-members li{display:flex;align-items:center;gap:4px;margin:2px 0}
.bt-add{display:flex;gap:6px;align-items:center}.bt-add select{flex:1}
.bt-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.bt-settings{margin-top:14px;border-top:1px solid var(--dsw-alias-border-l2,#ccc);padding-top:10px}.bt-settings h3{font-size:13px;margin:0 0 8px}
.bt-inline{display:flex;gap:6px;align-items:center}.bt-inline input{flex:1;min-width:0}.bt-left{text-align:left}
.bt-st.approval{border-color:#e67700;color:#a35200}.bt-st.stopped{border-color:#c92a2a;color:#c92a2a}
.bt-part{list-style:none;margin:8px 0 0;padding:0;display:flex;flex-direction:column;gap:6px}.bt-part li{display:flex;flex-direction:column;gap:2px;padding:6px 8px;border-radius:8px;background:rgba(127,127,127,.07)}.bt-part li b{font-size:12px}.bt-part .bt-body{white-space:pre-wrap}
.bt-panel[hidden],.bt-panel [hidden]{display:none!important}
.bt-list{margin:4px 0;padding-left:1.2rem}.bt-list li{margin:3px 0}.bt-code{font-family:ui-monospace,monospace;font-size:15px}.bt-start{justify-content:flex-start}
.bt-badge{display:inline-flex;align-items:center;gap:6px;font-size:12px;padding:2px 8px;border-radius:12px;border:1px solid var(--dsw-alias-border-l2,#bbb);color:var(--dsw-alias-label-primary,#111)}
.bt-count{display:inline-block;margin-left:6px;min-width:18px;padding:0 5px;border-radius:9px;background:#c92a2a;color:#fff;font-size:11px;font-weight:700;text-align:center}
.bt-board{width:96vw;max-width:none;height:90vh;max-height:90vh;display:flex;flex-direction:column;overflow:hidden}
.bt-board-head{display:flex;align-items:center;gap:10px;margin-bottom:8px}.bt-board-head h2{margin:0;flex:1}
.bt-cols{flex:1;min-height:0;display:flex;gap:10px;overflow-x:auto}
.bt-col{flex:1 0 150px;max-width:280px;display:flex;flex-direction:column;min-height:0;border-radius:10px;background:rgba(127,127,127,.07);padding:6px}
.bt-col.inbox{background:rgba(201,42,42,.07)}
.bt-col h3{margin:2px 4px 6px;font-size:12px;font-weight:600;color:var(--dsw-alias-label-primary,#111)}
.bt-col-count{font-weight:400;color:var(--dsw-alias-label-secondary,#444)}
.bt-col ul{list-style:none;margin:0;padding:0;overflow-y:auto;display:flex;flex-direction:column;gap:5px}
.bt-card{content-visibility:auto;contain-intrinsic-size:auto 58px}
.bt-card-open{width:100%;display:flex;flex-direction:column;gap:2px;text-align:left;padding:6px 8px;border-radius:8px;border:1px solid var(--dsw-alias-border-l2,#ccc);background:var(--dsw-alias-button-elevated-fill,#fff);color:inherit;font-size:12px;cursor:pointer}
.bt-card.waits .bt-card-open{border-left:3px solid #c92a2a}
.bt-card-open:focus-visible{outline:2px solid #4d6bfe;outline-offset:1px}
.bt-card-title{font-weight:600;font-size:13px;overflow-wrap:anywhere}
.bt-card-open small{color:var(--dsw-alias-label-secondary,#444)}
.bt-card-git{display:flex;flex-direction:column;gap:2px;padding:2px 8px 6px;font-size:12px;color:var(--dsw-alias-label-secondary,#444);overflow-wrap:anywhere}
.bt-col ul.bt-card-commits{display:block;overflow:visible}.bt-card-commits li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.bt-card-tail{margin:0;max-height:7.5em;overflow:auto;font-size:11px;white-space:pre-wrap;background:var(--dsw-alias-fill-l1,#f4f4f4);color:var(--dsw-alias-label-primary,#111);padding:2px 4px;border-radius:4px}
.bt-project{border:1px solid var(--dsw-alias-border-l2,#ccc);border-radius:8px;padding:8px 12px;margin:0 0 10px}.bt-project h3{margin:0 0 6px;font-size:14px}
.bt-facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 8px}.bt-facts dt{color:var(--dsw-alias-label-secondary,#444)}.bt-facts dd{margin:0}
.bt-text{white-space:pre-wrap;margin:2px 0 8px;text-align:left}
`

/** Add the stylesheet once (no-op without a document). */
export function injectStyles(): void {
  const doc = (globalThis as { document?: any }).document
  if (!doc || doc.querySelector('style[data-plugin="dsh-bot-team"]')) return
  const tag = doc.createElement('style')
  tag.setAttribute('data-plugin', 'dsh-bot-team')
  tag.textContent = CSS
  doc.head.appendChild(tag)
}
