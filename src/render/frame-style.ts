// The stylesheet of rendered frames (inline: a frame is one self-contained document), with light
// and dark themes following the viewer's system setting.
export const FRAME_CSS = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--soft:#f6f8fa;--line:#d1d9e0;--accent:#0969da;
--kw:#cf222e;--str:#0a3069;--num:#0550ae;--com:#59636e;--fn:#8250df;--type:#953800}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--soft:#151b23;--line:#3d444d;--accent:#4493f8;
--kw:#ff7b72;--str:#a5d6ff;--num:#79c0ff;--com:#9198a1;--fn:#d2a8ff;--type:#ffa657}}
*{box-sizing:border-box}html,body{margin:0;background:var(--bg);color:var(--fg)}
body{font:15px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;padding:24px}
pre,code,.code{font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--soft);border:1px solid var(--line);border-radius:8px;padding:12px 16px;overflow:auto}
.plain{white-space:pre-wrap;word-break:break-word;background:none;border:0;padding:0}
.markdown{max-width:860px;margin:0 auto}.markdown h1,.markdown h2{border-bottom:1px solid var(--line);padding-bottom:.3em}
.markdown table,.csv{border-collapse:collapse}.markdown td,.markdown th,.csv td,.csv th{border:1px solid var(--line);padding:6px 12px;text-align:left}
.markdown th,.csv th{background:var(--soft);font-weight:600}.markdown img{max-width:100%}
.markdown blockquote{margin:0;padding:0 1em;color:var(--muted);border-left:4px solid var(--line)}
.markdown li:has(> input){list-style:none}.markdown input[type=checkbox]{margin:0 .4em 0 -1.3em}
a{color:var(--accent)}.table-wrap{overflow:auto}.csv tbody tr:nth-child(even){background:var(--soft)}
.code{border-collapse:collapse;width:100%}.code td{padding:0 12px;vertical-align:top;white-space:pre}
.code .ln{text-align:right;color:var(--muted);user-select:none;width:1%;border-right:1px solid var(--line)}
.code .ln::before{content:attr(data-n)}
.hljs-keyword,.hljs-selector-tag,.hljs-literal,.hljs-built_in{color:var(--kw)}.hljs-string,.hljs-regexp,.hljs-attr{color:var(--str)}
.hljs-number{color:var(--num)}.hljs-comment,.hljs-quote{color:var(--com);font-style:italic}
.hljs-title,.hljs-function{color:var(--fn)}.hljs-type,.hljs-class,.hljs-meta{color:var(--type)}.hljs-tag,.hljs-name{color:var(--kw)}
.json{font:13px/1.6 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}.json ul{list-style:none;margin:0;padding-left:1.4em;border-left:1px dotted var(--line)}
.json summary{cursor:pointer;display:inline}.json details{display:inline}.json details:not([open]) .count::before{content:" … "}
.json .count{color:var(--muted);margin:0 .4em;font-size:12px}.json details[open]>summary .count{display:none}
.json .k{color:var(--fn)}.json .s{color:var(--str)}.json .n{color:var(--num)}.json .b,.json .null{color:var(--kw)}
.media{display:flex;justify-content:center;align-items:center;min-height:calc(100vh - 48px)}
.media img,.media video{max-width:100%;max-height:calc(100vh - 48px)}.media audio{width:min(600px,100%)}
.card{max-width:420px;margin:10vh auto;padding:28px;border:1px solid var(--line);border-radius:12px;text-align:center;background:var(--soft)}
.card .name{font-weight:600;word-break:break-all}.card .meta{color:var(--muted);margin:.5em 0 1.2em}
.button{display:inline-block;padding:8px 16px;border-radius:8px;background:var(--accent);color:#fff;text-decoration:none;font-weight:600}
.notice{color:var(--muted);font-style:italic}
.drawing{margin:0 0 16px;display:flex;justify-content:center}.drawing>*{max-width:100%}.drawing>.diagram,.drawing>.draw-failed{width:100%}.drawing svg,.diagram svg,.chart svg{max-width:100%;height:auto}.diagram,.chart{text-align:center;overflow:auto}
.draw-failed pre,.draw-failed .notice{white-space:pre-wrap}.math.display{display:block;overflow-x:auto;overflow-y:hidden;padding:4px 0}
.notebook{max-width:1100px;margin:0 auto}.cell{display:grid;grid-template-columns:80px minmax(0,1fr);gap:0 12px;margin:0 0 14px}
.cell.markdown,.cell.raw{padding-left:92px;display:block}.cell .prompt{color:var(--muted);font:12px/2.2 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;text-align:right}
.cell pre.input{margin:0}.cell .output{margin:8px 0 0;max-width:100%;overflow:auto}.cell pre.output{background:none;border:0;padding:0 4px;white-space:pre-wrap;word-break:break-word}
.cell pre.stderr{background:color-mix(in srgb,var(--kw) 10%,transparent);padding:4px 8px}.cell pre.error{background:color-mix(in srgb,var(--kw) 10%,transparent);padding:8px}
.cell img.output{display:block;background:#fff}.html-output{display:block;width:100%;border:1px solid var(--line);border-radius:6px;margin-top:8px;background:#fff;resize:vertical;overflow:auto}
@media (max-width:640px){.cell{display:block}.cell.markdown,.cell.raw{padding-left:0}.cell .prompt{text-align:left;line-height:1.8}body{padding:14px}}
.ansi-black-fg{color:#3e4451}.ansi-red-fg{color:#c4001a}.ansi-green-fg{color:#1a7f37}.ansi-yellow-fg{color:#9a6700}.ansi-blue-fg{color:#0550ae}
.ansi-magenta-fg{color:#8250df}.ansi-cyan-fg{color:#1b7c83}.ansi-white-fg{color:#6e7781}.ansi-bright-black-fg{color:#59636e}.ansi-bright-red-fg{color:#d1242f}
.ansi-bright-green-fg{color:#2da44e}.ansi-bright-yellow-fg{color:#bf8700}.ansi-bright-blue-fg{color:#218bff}.ansi-bright-magenta-fg{color:#a475f9}
.ansi-bright-cyan-fg{color:#3192aa}.ansi-bright-white-fg{color:#8c959f}
.ansi-red-bg{background:#ffebe9}.ansi-green-bg{background:#dafbe1}.ansi-yellow-bg{background:#fff8c5}.ansi-blue-bg{background:#ddf4ff}
.ansi-magenta-bg{background:#fbefff}.ansi-cyan-bg{background:#d8f5f3}.ansi-black-bg{background:#d1d9e0}.ansi-white-bg{background:#f6f8fa}
@media (prefers-color-scheme:dark){.ansi-black-fg{color:#8b949e}.ansi-red-fg{color:#ff7b72}.ansi-green-fg{color:#3fb950}.ansi-yellow-fg{color:#d29922}
.ansi-blue-fg{color:#58a6ff}.ansi-magenta-fg{color:#bc8cff}.ansi-cyan-fg{color:#39c5cf}.ansi-white-fg{color:#b1bac4}.ansi-bright-red-fg{color:#ffa198}
.ansi-bright-green-fg{color:#56d364}.ansi-bright-yellow-fg{color:#e3b341}.ansi-bright-blue-fg{color:#79c0ff}.ansi-bright-magenta-fg{color:#d2a8ff}
.ansi-bright-cyan-fg{color:#56d4dd}.ansi-bright-white-fg{color:#f0f6fc}.ansi-red-bg{background:#490202}.ansi-green-bg{background:#04260f}
.ansi-yellow-bg{background:#341a00}.ansi-blue-bg{background:#0c2d6b}.ansi-magenta-bg{background:#271052}.ansi-cyan-bg{background:#012d33}
.ansi-black-bg{background:#010409}.ansi-white-bg{background:#30363d}}
`
