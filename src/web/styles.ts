// The app's one stylesheet: a small design system that every page builds from. Tokens first
// (colours per scheme, spacing, type, control height), then elements, then components. Pages add
// no inline styles; a page that needs a new look gets a component here.

const TOKENS = `
:root{color-scheme:light dark;
--fg:#1f2328;--muted:#59636e;--bg:#f6f8fa;--panel:#fff;--line:#d1d9e0;--chip:#eef1f4;
--accent:#0969da;--accent-fg:#fff;--danger:#cf222e;--danger-fg:#fff;--ok:#1a7f37;--ok-text:#116329;
--add:#dafbe1;--del:#ffebe9;--shadow:0 8px 24px rgba(0,0,0,.15);
--s1:4px;--s2:8px;--s3:12px;--s4:16px;--s5:24px;--s6:40px;
--text-sm:12px;--text:14px;--text-lg:16px;--text-xl:22px;
--radius:8px;--radius-lg:12px;--control:34px;--control-sm:28px}
@media (prefers-color-scheme:dark){:root{
--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#151b23;--line:#3d444d;--chip:#212830;
--accent:#4493f8;--accent-fg:#0d1117;--danger:#f85149;--danger-fg:#0d1117;--ok:#3fb950;--ok-text:#3fb950;
--add:#12361f;--del:#4a1c1f;--shadow:0 8px 24px rgba(0,0,0,.5)}}
`

const ELEMENTS = `
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;background:var(--bg);color:var(--fg);font:var(--text)/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
p a,li a,.notice a{text-decoration:underline}
h1{font-size:var(--text-xl);line-height:1.25;margin:0 0 var(--s4)}
h2{font-size:var(--text-lg);margin:var(--s5) 0 var(--s3)}
code{font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
label{display:block;font-weight:600;margin:var(--s3) 0 var(--s1)}
input,select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:var(--radius);min-height:var(--control);padding:0 var(--s3);width:100%;max-width:100%}
input[type=file]{padding:var(--s1);line-height:calc(var(--control) - 10px)}
button,.btn{font:inherit;font-weight:600;line-height:1.2;cursor:pointer;border:1px solid var(--line);border-radius:var(--radius);min-height:var(--control);padding:0 var(--s3);background:var(--panel);color:var(--fg);display:inline-flex;align-items:center;justify-content:center;gap:var(--s2);white-space:nowrap;text-decoration:none;vertical-align:middle}
button:hover,.btn:hover{text-decoration:none;border-color:var(--muted)}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.primary{background:var(--accent);color:var(--accent-fg);border-color:transparent}
.danger{color:var(--danger)}
.danger.solid{background:var(--danger);color:var(--danger-fg);border-color:transparent}
.small{min-height:var(--control-sm);padding:0 var(--s2);font-size:var(--text-sm)}
.muted{color:var(--muted)}
.hint{color:var(--muted);font-size:var(--text-sm);margin:var(--s1) 0 0}
`

const LAYOUT = `
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:var(--s2) var(--s4);padding:10px 20px;background:var(--panel);border-bottom:1px solid var(--line)}
header.top .brand{font-weight:700;font-size:var(--text-lg);color:var(--fg)}
header.top nav{display:flex;flex-wrap:wrap;gap:var(--s2) 14px;margin-left:auto;align-items:center;min-width:0}
header.top nav .who{max-width:45vw;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
main{max-width:1100px;margin:var(--s5) auto;padding:0 20px}
main.narrow{max-width:440px}main.wide{max-width:none;margin:0;padding:0}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius-lg);padding:20px;margin-bottom:var(--s4)}
.panel>h2:first-child{margin-top:0}
.row{display:flex;gap:var(--s2);align-items:end;flex-wrap:wrap}
.row>*{flex:0 1 auto;min-width:0}.row .grow{flex:1 1 200px}
.row input,.row select{width:auto}.row .grow input{width:100%}
.stack{display:flex;flex-direction:column;gap:var(--s3)}
.head{display:flex;flex-wrap:wrap;gap:var(--s2) var(--s3);align-items:center;justify-content:space-between;margin-bottom:var(--s4)}
.head h1{margin:0}
form.inline{display:inline-flex}
.actions{display:flex;gap:var(--s2);flex-wrap:wrap;align-items:center}
.pager{display:flex;gap:var(--s3);justify-content:space-between;margin-top:var(--s3)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,160px),1fr));gap:var(--s3)}
`

const COMPONENTS = `
.notice{border:1px solid;padding:10px var(--s3);border-radius:var(--radius);margin:var(--s3) 0}
.notice p{margin:var(--s1) 0}
.error{background:color-mix(in srgb,var(--danger) 12%,transparent);border-color:var(--danger)}
.success{background:color-mix(in srgb,var(--ok) 12%,transparent);border-color:var(--ok)}
.chip{display:inline-block;padding:1px var(--s2);border-radius:999px;background:var(--chip);font-size:var(--text-sm);color:var(--muted);white-space:nowrap}
.chip.public{color:var(--ok-text)}
code.block{display:block;padding:10px;background:var(--bg);border:1px solid var(--line);border-radius:var(--radius);word-break:break-all;white-space:pre-wrap}
.stats{display:flex;gap:var(--s5);flex-wrap:wrap}.stats div b{display:block;font-size:20px}
.empty{text-align:center;padding:var(--s6) var(--s4);color:var(--muted)}
table.list{width:100%;border-collapse:separate;border-spacing:0;background:var(--panel);border:1px solid var(--line);border-radius:var(--radius-lg)}
table.list th,table.list td{padding:10px var(--s3);border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
table.list tr:last-child td{border-bottom:0}
table.list th{font-size:var(--text-sm);text-transform:uppercase;letter-spacing:.04em;color:var(--muted);background:var(--bg)}
table.list th:first-child{border-top-left-radius:var(--radius-lg)}table.list th:last-child{border-top-right-radius:var(--radius-lg)}
table.list td.end{text-align:right}table.list td.end .actions{justify-content:flex-end}
table.list .sub{color:var(--muted);font-size:var(--text-sm)}
.nowrap{white-space:nowrap}.spaced{margin-top:var(--s3)}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
details.menu{position:relative;display:inline-block}
details.menu>summary{list-style:none}details.menu>summary::-webkit-details-marker{display:none}
details.menu>.items{position:absolute;right:0;z-index:3;margin-top:var(--s1);background:var(--panel);border:1px solid var(--line);border-radius:var(--radius);padding:var(--s1);display:flex;flex-direction:column;min-width:190px;box-shadow:var(--shadow)}
details.menu>.items form{display:flex}
details.menu>.items .btn,details.menu>.items button{border:0;justify-content:flex-start;width:100%;background:transparent}
details.menu>.items .btn:hover,details.menu>.items button:hover{background:var(--chip)}
details.dialog>summary{list-style:none;display:inline-flex}details.dialog>summary::-webkit-details-marker{display:none}
details.dialog[open]>summary{margin-bottom:var(--s3)}
.drop{border:2px dashed var(--line);border-radius:var(--radius-lg);padding:var(--s4);background:var(--panel);margin-bottom:var(--s4)}
.drop.over{border-color:var(--accent);background:color-mix(in srgb,var(--accent) 8%,var(--panel))}
.drop .row{align-items:center}
progress{width:100%;height:10px;accent-color:var(--accent)}
.diff{background:var(--panel);border:1px solid var(--line);border-radius:var(--radius-lg);overflow:auto;font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.diff div{white-space:pre-wrap;overflow-wrap:anywhere;padding:0 var(--s3)}
.diff .add{background:var(--add)}.diff .del{background:var(--del)}.diff .gap{color:var(--muted);background:var(--bg);padding:var(--s1) var(--s3)}
.docs table.list td,table.files td.primary-cell a{overflow-wrap:anywhere}
table.files td.primary-cell a{min-width:0}
`

const VIEWER = `
.viewer{display:flex;flex-direction:column;height:100vh}
.viewer .bar{display:flex;gap:var(--s2) var(--s3);align-items:center;padding:var(--s2) var(--s4);background:var(--panel);border-bottom:1px solid var(--line);flex-wrap:wrap}
.viewer .bar .title{font-weight:700;font-size:15px;margin-right:auto;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;min-width:0;max-width:100%}
.viewer .bar form{display:flex;gap:var(--s2);align-items:center}
.viewer .bar select{width:auto}
.viewer iframe{flex:1;width:100%;border:0;background:#fff}
.viewer .notice{margin:var(--s2) var(--s4)}
.live-note{margin:0;padding:0 var(--s4);font-size:var(--text-sm);color:var(--muted)}.live-note:empty{display:none}
.live-note:not(:empty){padding:var(--s1) var(--s4);background:var(--panel);border-bottom:1px solid var(--line);color:var(--fg)}
.owner .viewer{height:auto}.owner .viewer iframe{flex:none;height:70vh;min-height:320px}
.owner .details{max-width:1100px;margin:var(--s5) auto;padding:0 20px}
`

// Narrow screens: tables become one card per row, each cell labelled by its column.
const NARROW = `
@media (max-width:720px){
main{padding:0 var(--s3);margin:var(--s4) auto}
.owner .details{padding:0 var(--s3)}
table.list,table.list tbody,table.list tr,table.list td{display:block;width:100%}
table.list thead{display:none}
table.list tr{border-bottom:1px solid var(--line);padding:var(--s2) 0}
table.list tr:last-child{border-bottom:0}
table.list td{border:0;padding:2px var(--s3);display:flex;gap:var(--s2);align-items:center;flex-wrap:wrap}
table.list td[data-label]{display:inline-flex;width:auto;gap:var(--s1);padding-right:0}
table.list td[data-label]::before{content:attr(data-label);color:var(--muted);font-size:var(--text-sm)}
table.list td.end{text-align:left}table.list td.end .actions{justify-content:flex-start}
table.list td.primary-cell{font-size:var(--text-lg);background:none;color:var(--fg)}
}
`

export const APP_CSS = [TOKENS, ELEMENTS, LAYOUT, COMPONENTS, VIEWER, NARROW]
  .map((part) => part.trim())
  .join('\n')
