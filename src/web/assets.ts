// Static assets of the app pages, served from the app origin so the CSP can stay `'self'`.

export const APP_CSS = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#f6f8fa;--panel:#fff;--line:#d1d9e0;--accent:#0969da;--accent-fg:#fff;--danger:#cf222e;--ok:#1a7f37;--chip:#eef1f4}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#151b23;--line:#3d444d;--accent:#4493f8;--accent-fg:#0d1117;--danger:#f85149;--ok:#3fb950;--chip:#212830}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;padding:10px 20px;background:var(--panel);border-bottom:1px solid var(--line)}
header.top .brand{font-weight:700;font-size:16px;color:var(--fg)}header.top nav{display:flex;flex-wrap:wrap;gap:8px 14px;margin-left:auto;align-items:center;min-width:0}
header.top nav .muted{max-width:45vw;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
main{max-width:1100px;margin:24px auto;padding:0 20px}main.narrow{max-width:420px}main.wide{max-width:none;margin:0;padding:0}
h1{font-size:22px;margin:0 0 16px}h2{font-size:16px;margin:24px 0 10px}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:12px;padding:20px}
label{display:block;font-weight:600;margin:12px 0 4px}input,select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:8px 10px;width:100%}
button,.btn{font:inherit;font-weight:600;line-height:1.4;cursor:pointer;border:1px solid var(--line);border-radius:8px;padding:6px 12px;background:var(--panel);color:var(--fg);display:inline-block}
button.primary,.btn.primary{background:var(--accent);color:var(--accent-fg);border-color:transparent}button.danger{color:var(--danger)}
form.inline{display:inline}.row{display:flex;gap:8px;align-items:end;flex-wrap:wrap}.row>*{flex:0 0 auto}.row input,.row select{width:auto}
.error{background:color-mix(in srgb,var(--danger) 12%,transparent);border:1px solid var(--danger);padding:10px 12px;border-radius:8px;margin:12px 0}
.success{background:color-mix(in srgb,var(--ok) 12%,transparent);border:1px solid var(--ok);padding:10px 12px;border-radius:8px;margin:12px 0;word-break:break-all}
table.list{width:100%;border-collapse:collapse;background:var(--panel);border:1px solid var(--line);border-radius:12px;overflow:hidden}
table.list th,table.list td{padding:10px 12px;border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
table.list th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);background:var(--bg)}
.chip{display:inline-block;padding:1px 8px;border-radius:999px;background:var(--chip);font-size:12px;color:var(--muted)}
.chip.public{color:var(--ok)}.muted{color:var(--muted)}.actions{display:flex;gap:6px;flex-wrap:wrap}
.actions button{padding:3px 8px;font-size:12px}details.menu summary{cursor:pointer;list-style:none}
.filters{display:flex;gap:8px;margin-bottom:12px;align-items:center;flex-wrap:wrap}.filters select,.filters input{width:auto}
.actions .btn,.actions button{padding:3px 10px;font-size:12px;font-weight:600}.actions select,.actions input{width:auto;padding:3px 6px;font-size:12px}
details.menu{position:relative}details.menu summary{list-style:none}details.menu summary::-webkit-details-marker{display:none}
details.menu form{position:absolute;right:0;z-index:2;margin-top:4px;background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:10px;display:flex;flex-direction:column;gap:6px;min-width:200px;box-shadow:0 8px 24px rgba(0,0,0,.15)}
.spaced{margin-top:12px}.banner{margin:8px 16px}.bar form{display:flex;gap:6px;align-items:center}.btn.danger{color:var(--danger)}
.pager{display:flex;gap:12px;justify-content:space-between;margin-top:12px}
code.key{display:block;padding:10px;background:var(--bg);border:1px solid var(--line);border-radius:8px;word-break:break-all;font-size:13px}
.viewer{display:flex;flex-direction:column;height:100vh}.viewer .bar{display:flex;gap:12px;align-items:center;padding:8px 16px;background:var(--panel);border-bottom:1px solid var(--line);flex-wrap:wrap}
.viewer .bar .title{font-weight:700;font-size:15px;margin-right:auto;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.viewer iframe{flex:1;width:100%;border:0;background:#fff}.viewer .bar select{width:auto;padding:4px 8px}
.docs p a{text-decoration:underline}.docs code{overflow-wrap:anywhere}.docs table.list td{overflow-wrap:anywhere}
.empty{text-align:center;padding:48px;color:var(--muted)}.stats{display:flex;gap:24px;flex-wrap:wrap}.stats div b{display:block;font-size:20px}
`

// The only script: copy buttons. Pages work without it.
export const APP_JS = `document.addEventListener('click',function(e){var b=e.target.closest('[data-copy]');if(!b)return;var t=document.getElementById(b.getAttribute('data-copy'));if(!t)return;navigator.clipboard.writeText(t.textContent.trim()).then(function(){b.textContent='Copied'})})`
