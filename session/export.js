// xcsh session page: reads the embedded session, draws the entry tree and
// the conversation from the root to the selected leaf. Every piece of session
// text reaches the page through textContent or a text node, never as markup;
// links are made only for http, https and mailto URLs.
(function () {
  'use strict';

  // ---------------------------------------------------------------- data

  function loadData() {
    const b64 = document.getElementById('session-data').textContent.trim();
    let bytes;
    if (typeof Uint8Array.fromBase64 === 'function') {
      bytes = Uint8Array.fromBase64(b64);
    } else {
      const bin = atob(b64);
      bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    }
    return JSON.parse(new TextDecoder('utf-8').decode(bytes));
  }

  let data;
  try {
    data = loadData();
  } catch (err) {
    document.getElementById('messages').textContent = 'The session data in this page cannot be read: ' + err;
    return;
  }
  const header = isObject(data.header) ? data.header : {};
  const entries = Array.isArray(data.entries) ? data.entries.filter(isObject) : [];
  const systemPrompt = typeof data.systemPrompt === 'string' ? data.systemPrompt : '';
  const tools = Array.isArray(data.tools) ? data.tools.filter(isObject) : null;

  const byId = new Map();
  for (const e of entries) if (typeof e.id === 'string') byId.set(e.id, e);

  // Labels: the last label entry for a target wins; an empty label clears it.
  const labels = new Map();
  for (const e of entries) {
    if (e.type !== 'label' || typeof e.targetId !== 'string') continue;
    if (typeof e.label === 'string' && e.label !== '') labels.set(e.targetId, e.label);
    else labels.delete(e.targetId);
  }

  // Tool calls by id, for naming tool results in the tree.
  const toolCalls = new Map();
  for (const e of entries) {
    const m = messageOf(e);
    if (!m || m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (isObject(b) && b.type === 'toolCall') toolCalls.set(b.id, b);
    }
  }

  const defaultLeaf = pickDefaultLeaf();
  const params = readParams();
  let currentLeaf = params.leafId && byId.has(params.leafId) ? params.leafId : defaultLeaf;
  let filterMode = 'default';
  let searchQuery = '';
  let thinkingOpen = true;
  let toolsExpanded = false;

  function pickDefaultLeaf() {
    if (typeof data.leafId === 'string' && byId.has(data.leafId)) return data.leafId;
    for (let i = entries.length - 1; i >= 0; i--) {
      if (typeof entries[i].id === 'string') return entries[i].id;
    }
    return null;
  }

  function readParams() {
    const meta = document.querySelector('meta[name="pi-url-params"]');
    let search = meta ? meta.getAttribute('content') || '' : window.location.search.slice(1);
    const p = new URLSearchParams(search);
    return { leafId: p.get('leafId'), targetId: p.get('targetId') };
  }

  // ---------------------------------------------------------------- helpers

  function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }

  function str(v) {
    if (typeof v === 'string') return v;
    if (v === undefined || v === null) return '';
    if (typeof v === 'object') {
      try { return JSON.stringify(v); } catch (err) { return String(v); }
    }
    return String(v);
  }

  function num(v) {
    return typeof v === 'number' && isFinite(v) ? v : 0;
  }

  // el builds an element; attributes are set as attributes (never as markup)
  // and children are nodes or strings (text nodes).
  function el(tag, attrs) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const k of Object.keys(attrs)) {
        const v = attrs[k];
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') node.className = v;
        else if (k === 'text') node.textContent = v;
        else if (k === 'onclick') node.addEventListener('click', v);
        else node.setAttribute(k, String(v));
      }
    }
    for (let i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }

  function add(parent, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) {
      for (const c of child) add(parent, c);
    } else if (typeof child === 'string') {
      parent.appendChild(document.createTextNode(child));
    } else {
      parent.appendChild(child);
    }
  }

  function messageOf(e) {
    return e && e.type === 'message' && isObject(e.message) ? e.message : null;
  }

  // textOf joins the text blocks of user-like content.
  function textOf(content) {
    if (typeof content === 'string') return content;
    if (!Array.isArray(content)) return '';
    const parts = [];
    for (const b of content) {
      if (isObject(b) && b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    }
    return parts.join('\n');
  }

  function oneLine(s, max) {
    const t = str(s).replace(/\s+/g, ' ').trim();
    return t.length > max ? t.slice(0, max) + '…' : t;
  }

  function formatTime(ts) {
    if (ts === undefined || ts === null || ts === '') return '';
    const d = new Date(ts);
    return isNaN(d.getTime()) ? '' : d.toLocaleString();
  }

  function formatTokens(n) {
    if (n < 1000) return String(n);
    if (n < 10000) return (n / 1000).toFixed(1) + 'k';
    if (n < 1000000) return Math.round(n / 1000) + 'k';
    return (n / 1000000).toFixed(1) + 'M';
  }

  // safeHref returns a link target for http, https and mailto URLs only;
  // anything else (javascript:, data:, relative paths) gives null.
  function safeHref(raw) {
    const s = str(raw).trim();
    if (!s || /[\u0000-\u0020\u007f]/.test(s)) return null;
    if (!/^(https?:\/\/|mailto:)/i.test(s)) return null;
    try {
      const u = new URL(s);
      if (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:') return u.href;
    } catch (err) {
      return null;
    }
    return null;
  }

  const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|bmp)$/;

  // image draws an image block from its base64 data; other data (an
  // unresolved blob reference, an unknown type) is named instead.
  function image(block) {
    const type = str(block.mimeType).toLowerCase();
    const b64 = str(block.data);
    if (!IMAGE_TYPES.test(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) {
      return el('div', { class: 'note', text: '[image' + (type ? ': ' + type : '') + ']' });
    }
    const img = el('img', { class: 'attached', alt: 'image' });
    img.src = 'data:' + type + ';base64,' + b64;
    return img;
  }

  // ---------------------------------------------------------------- highlighting

  const JS_KW = 'async await break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new of return static super switch this throw try typeof var void while with yield null undefined true false';
  const C_KW = 'auto break case char const continue default do double else enum extern float for goto if inline int long register return short signed sizeof static struct switch typedef union unsigned void volatile while class public private protected virtual template typename namespace using new delete this true false nullptr bool';
  const LANGS = {
    js: { kw: JS_KW, line: ['//'], block: ['/*', '*/'], quotes: '"\'`' },
    ts: { kw: JS_KW + ' interface type enum implements private public protected readonly declare namespace abstract as keyof any unknown never number string boolean', line: ['//'], block: ['/*', '*/'], quotes: '"\'`' },
    go: { kw: 'break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota', line: ['//'], block: ['/*', '*/'], quotes: '"\'`' },
    py: { kw: 'and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self', line: ['#'], quotes: '"\'' },
    sh: { kw: 'if then else elif fi case esac for while until do done in function return local export readonly declare echo exit set unset shift source cd', line: ['#'], quotes: '"\'', hashAfterSpace: true },
    rust: { kw: 'as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while', line: ['//'], block: ['/*', '*/'], quotes: '"' },
    c: { kw: C_KW, line: ['//'], block: ['/*', '*/'], quotes: '"\'' },
    java: { kw: 'abstract boolean break byte case catch char class const continue default do double else enum extends final finally float for fun if implements import instanceof int interface long new null package private protected public return short static super switch synchronized this throw throws try val var void volatile while true false', line: ['//'], block: ['/*', '*/'], quotes: '"\'' },
    ruby: { kw: 'begin class def do else elsif end ensure false for if in module next nil require rescue return self true unless until when while yield', line: ['#'], quotes: '"\'' },
    sql: { kw: 'select from where insert into values update set delete create table drop alter join left right inner outer on group by order having limit as and or not null is in like distinct union primary key index', line: ['--'], block: ['/*', '*/'], quotes: '\'"', ci: true },
    json: { kw: 'true false null', quotes: '"' },
    yaml: { kw: 'true false null yes no', line: ['#'], quotes: '"\'', hashAfterSpace: true },
    css: { kw: '', block: ['/*', '*/'], quotes: '"\'' },
    html: { kw: '', block: ['<' + '!--', '--' + '>'], quotes: '"\'' },
    diff: { diff: true },
  };
  const ALIASES = {
    javascript: 'js', jsx: 'js', mjs: 'js', cjs: 'js', node: 'js',
    typescript: 'ts', tsx: 'ts', mts: 'ts', cts: 'ts',
    golang: 'go', python: 'py', python3: 'py',
    bash: 'sh', shell: 'sh', zsh: 'sh', console: 'sh', shellscript: 'sh',
    rs: 'rust', h: 'c', cpp: 'c', cc: 'c', cxx: 'c', hpp: 'c', 'c++': 'c', cs: 'c', csharp: 'c',
    kotlin: 'java', kt: 'java', scala: 'java', swift: 'java',
    rb: 'ruby', yml: 'yaml', htm: 'html', xml: 'html', svg: 'html', vue: 'html',
    patch: 'diff', jsonl: 'json', json5: 'json', scss: 'css', less: 'css', psql: 'sql',
  };
  for (const k of Object.keys(LANGS)) {
    const spec = LANGS[k];
    spec.words = new Set((spec.kw || '').split(' ').filter(Boolean));
  }

  const own = (obj, k) => Object.prototype.hasOwnProperty.call(obj, k);

  // langOf names the highlighter for a fence's info string or a file
  // extension; session text never reaches an inherited property.
  function langOf(name) {
    const k = str(name).toLowerCase().replace(/^\./, '');
    if (own(LANGS, k)) return k;
    return own(ALIASES, k) ? ALIASES[k] : '';
  }

  function langOfPath(path) {
    const m = /\.([A-Za-z0-9+]+)$/.exec(str(path));
    if (m) return langOf(m[1]);
    return /(^|\/)(Makefile|Dockerfile)$/.test(str(path)) ? 'sh' : '';
  }

  const IDENT = /[A-Za-z_$][\w$]*/y;
  const NUMBER = /(?:0[xXoObB][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)/y;

  // highlight appends code to parent as text nodes and spans for keywords,
  // strings, comments and numbers.
  function highlight(parent, code, lang) {
    const spec = own(LANGS, lang) ? LANGS[lang] : null;
    if (!spec) {
      parent.appendChild(document.createTextNode(code));
      return;
    }
    if (spec.diff) {
      for (const line of code.split(/(?<=\n)/)) {
        let cls = '';
        if (/^\+/.test(line)) cls = 'diff-add';
        else if (/^-/.test(line)) cls = 'diff-del';
        else if (/^@@/.test(line)) cls = 'diff-hunk';
        parent.appendChild(cls ? el('span', { class: cls, text: line }) : document.createTextNode(line));
      }
      return;
    }
    let buf = '';
    const flush = () => {
      if (buf) parent.appendChild(document.createTextNode(buf));
      buf = '';
    };
    const span = (cls, text) => {
      flush();
      parent.appendChild(el('span', { class: cls, text: text }));
    };
    const n = code.length;
    let i = 0;
    while (i < n) {
      const c = code[i];
      if (spec.line && spec.line.some((p) => code.startsWith(p, i)) &&
          (!spec.hashAfterSpace || i === 0 || /\s/.test(code[i - 1]))) {
        let j = code.indexOf('\n', i);
        if (j < 0) j = n;
        span('hl-com', code.slice(i, j));
        i = j;
        continue;
      }
      if (spec.block && code.startsWith(spec.block[0], i)) {
        let j = code.indexOf(spec.block[1], i + spec.block[0].length);
        j = j < 0 ? n : j + spec.block[1].length;
        span('hl-com', code.slice(i, j));
        i = j;
        continue;
      }
      if (spec.quotes && spec.quotes.indexOf(c) >= 0) {
        let j = i + 1;
        while (j < n && code[j] !== c) {
          if (code[j] === '\\') j++;
          else if (code[j] === '\n' && c !== '`') break;
          j++;
        }
        j = Math.min(n, j + 1);
        span('hl-str', code.slice(i, j));
        i = j;
        continue;
      }
      if (c >= '0' && c <= '9' && !/[\w$]/.test(code[i - 1] || '')) {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(code);
        if (m) {
          span('hl-num', m[0]);
          i += m[0].length;
          continue;
        }
      }
      if (/[A-Za-z_$]/.test(c)) {
        IDENT.lastIndex = i;
        const w = IDENT.exec(code)[0];
        if (spec.words.has(spec.ci ? w.toLowerCase() : w)) span('hl-kw', w);
        else buf += w;
        i += w.length;
        continue;
      }
      buf += c;
      i++;
    }
    flush();
  }

  function codeBlock(code, lang) {
    const c = el('code');
    highlight(c, code, langOf(lang));
    return el('pre', null, c);
  }

  // ---------------------------------------------------------------- markdown

  const MAX_DEPTH = 24;
  const LIST = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)(.*)$/;
  const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
  const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
  const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
  const QUOTE = /^ {0,3}>/;
  const BLANK = /^\s*$/;
  const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

  function markdown(src) {
    const root = el('div', { class: 'md' });
    blocks(root, str(src).replace(/\r\n?/g, '\n').split('\n'), 0);
    return root;
  }

  function isFence(line) {
    const m = FENCE.exec(line);
    return m && !(m[1][0] === '`' && m[2].indexOf('`') >= 0) ? m : null;
  }

  function isTable(lines, i) {
    return i + 1 < lines.length && lines[i].indexOf('|') >= 0 && lines[i + 1].indexOf('-') >= 0 && TABLE_SEP.test(lines[i + 1]);
  }

  function startsBlock(lines, i) {
    const l = lines[i];
    return isFence(l) || HEADING.test(l) || RULE.test(l) || QUOTE.test(l) || LIST.test(l) || isTable(lines, i);
  }

  function indentOf(line) {
    let n = 0;
    for (const ch of line) {
      if (ch === ' ') n++;
      else if (ch === '\t') n += 4 - (n % 4);
      else break;
    }
    return n;
  }

  // dedent removes up to n columns of leading white space.
  function dedent(line, n) {
    let col = 0;
    let i = 0;
    while (i < line.length && col < n) {
      if (line[i] === ' ') col++;
      else if (line[i] === '\t') col += 4 - (col % 4);
      else break;
      i++;
    }
    return line.slice(i);
  }

  function blocks(parent, lines, depth) {
    if (depth > MAX_DEPTH) {
      parent.appendChild(el('div', { class: 'plain', text: lines.join('\n') }));
      return;
    }
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if (BLANK.test(line)) {
        i++;
      } else if ((m = isFence(line))) {
        const fence = m[1];
        const info = m[2].trim().split(/\s+/)[0] || '';
        const body = [];
        i++;
        while (i < lines.length) {
          const f = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[i]);
          if (f && f[1][0] === fence[0] && f[1].length >= fence.length) break;
          body.push(lines[i]);
          i++;
        }
        i++;
        parent.appendChild(codeBlock(body.join('\n'), info));
      } else if ((m = HEADING.exec(line))) {
        const h = el('h' + m[1].length);
        inline(h, m[2] || '', 0);
        parent.appendChild(h);
        i++;
      } else if (RULE.test(line)) {
        parent.appendChild(el('hr'));
        i++;
      } else if (QUOTE.test(line)) {
        const inner = [];
        while (i < lines.length && QUOTE.test(lines[i])) {
          inner.push(lines[i].replace(/^ {0,3}> ?/, ''));
          i++;
        }
        const q = el('blockquote');
        blocks(q, inner, depth + 1);
        parent.appendChild(q);
      } else if (LIST.test(line)) {
        i = list(parent, lines, i, depth);
      } else if (isTable(lines, i)) {
        i = table(parent, lines, i);
      } else {
        const para = [line.trim()];
        i++;
        while (i < lines.length && !BLANK.test(lines[i]) && !startsBlock(lines, i)) {
          para.push(lines[i].trim());
          i++;
        }
        const p = el('p');
        inline(p, para.join('\n'), 0);
        parent.appendChild(p);
      }
    }
  }

  function list(parent, lines, i, depth) {
    const first = LIST.exec(lines[i]);
    const ordered = /\d/.test(first[2]);
    const base = first[1].length;
    const l = el(ordered ? 'ol' : 'ul');
    if (ordered) {
      const start = parseInt(first[2], 10);
      if (start !== 1) l.setAttribute('start', String(start));
    }
    while (i < lines.length) {
      const m = LIST.exec(lines[i]);
      if (!m || /\d/.test(m[2]) !== ordered || m[1].length > base + 1) break;
      const indent = m[1].length + m[2].length + Math.max(1, Math.min(m[3].length, 4));
      const item = [m[4]];
      let loose = false;
      i++;
      while (i < lines.length) {
        const line = lines[i];
        if (BLANK.test(line)) {
          let k = i + 1;
          while (k < lines.length && BLANK.test(lines[k])) k++;
          if (k < lines.length && indentOf(lines[k]) >= indent) {
            for (; i < k; i++) item.push('');
            loose = true;
            continue;
          }
          break;
        }
        if (indentOf(line) >= indent) {
          item.push(dedent(line, indent));
        } else if (LIST.test(line) || startsBlock(lines, i)) {
          break;
        } else {
          item.push(line.trim());
        }
        i++;
      }
      const li = el('li');
      blocks(li, item, depth + 1);
      if (!loose) {
        // a tight item shows its text without paragraph spacing
        for (const p of Array.from(li.children)) {
          if (p.tagName === 'P') {
            while (p.firstChild) li.insertBefore(p.firstChild, p);
            li.removeChild(p);
          }
        }
      }
      l.appendChild(li);
      if (i < lines.length && BLANK.test(lines[i])) {
        let k = i;
        while (k < lines.length && BLANK.test(lines[k])) k++;
        const next = k < lines.length ? LIST.exec(lines[k]) : null;
        if (next && /\d/.test(next[2]) === ordered && next[1].length <= base + 1) {
          i = k;
          continue;
        }
        break;
      }
    }
    parent.appendChild(l);
    return i;
  }

  function cells(line) {
    let s = line.trim();
    if (s.startsWith('|')) s = s.slice(1);
    if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
    return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
  }

  function table(parent, lines, i) {
    const t = el('table');
    const head = el('tr');
    for (const c of cells(lines[i])) {
      const th = el('th');
      inline(th, c, 0);
      head.appendChild(th);
    }
    t.appendChild(el('thead', null, head));
    const body = el('tbody');
    i += 2;
    while (i < lines.length && !BLANK.test(lines[i]) && lines[i].indexOf('|') >= 0) {
      const tr = el('tr');
      for (const c of cells(lines[i])) {
        const td = el('td');
        inline(td, c, 0);
        tr.appendChild(td);
      }
      body.appendChild(tr);
      i++;
    }
    t.appendChild(body);
    parent.appendChild(t);
    return i;
  }

  const PUNCT = /[!-/:-@[-`{-~]/;

  // inline appends text with emphasis, code spans and links to parent.
  function inline(parent, text, depth) {
    let buf = '';
    const flush = () => {
      if (buf) parent.appendChild(document.createTextNode(buf));
      buf = '';
    };
    const n = text.length;
    let i = 0;
    while (i < n) {
      const c = text[i];
      if (c === '\\' && i + 1 < n && PUNCT.test(text[i + 1])) {
        buf += text[i + 1];
        i += 2;
        continue;
      }
      if (c === '`') {
        let j = i;
        while (j < n && text[j] === '`') j++;
        const close = closingTicks(text, j, j - i);
        if (close >= 0) {
          flush();
          let code = text.slice(j, close).replace(/\n/g, ' ');
          if (/^ .* $/.test(code) && code.trim()) code = code.slice(1, -1);
          parent.appendChild(el('code', { text: code }));
          i = close + (j - i);
        } else {
          buf += text.slice(i, j);
          i = j;
        }
        continue;
      }
      if ((c === '*' || c === '_' || c === '~') && depth < MAX_DEPTH) {
        const dbl = text[i + 1] === c;
        const delim = dbl ? c + c : c;
        const next = text[i + delim.length];
        const opens = (c !== '~' || dbl) && next && !/\s/.test(next) &&
          !(c === '_' && /[A-Za-z0-9]/.test(text[i - 1] || ''));
        const close = opens ? closing(text, i + delim.length, delim) : -1;
        if (close > i + delim.length) {
          flush();
          const tag = c === '~' ? 'del' : dbl ? 'strong' : 'em';
          const e = el(tag);
          inline(e, text.slice(i + delim.length, close), depth + 1);
          parent.appendChild(e);
          i = close + delim.length;
        } else {
          buf += delim;
          i += delim.length;
        }
        continue;
      }
      if (c === '[' || (c === '!' && text[i + 1] === '[')) {
        const img = c === '!';
        const link = parseLink(text, img ? i + 1 : i);
        if (link) {
          const href = safeHref(link.url);
          if (href) {
            flush();
            // Images are shown as links: the page loads nothing from the network.
            const a = el('a', { href: href, target: '_blank', rel: 'noopener noreferrer nofollow' });
            if (img) add(a, '[image: ' + link.text + ']');
            else inline(a, link.text, depth + 1);
            parent.appendChild(a);
          } else {
            buf += text.slice(i, link.end);
          }
          i = link.end;
          continue;
        }
      }
      if (c === '<') {
        const m = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(text.slice(i, i + 2048));
        const href = m && safeHref(m[1]);
        if (href) {
          flush();
          parent.appendChild(el('a', { href: href, target: '_blank', rel: 'noopener noreferrer nofollow', text: m[1] }));
          i += m[0].length;
          continue;
        }
      }
      if ((c === 'h' || c === 'H') && !/[A-Za-z0-9]/.test(text[i - 1] || '')) {
        const m = /^https?:\/\/[^\s<>"'`]+/i.exec(text.slice(i, i + 2048));
        if (m) {
          let url = m[0].replace(/[.,;:!?)\]}*_~]+$/, '');
          const href = safeHref(url);
          if (href && url.length > 8) {
            flush();
            parent.appendChild(el('a', { href: href, target: '_blank', rel: 'noopener noreferrer nofollow', text: url }));
            i += url.length;
            continue;
          }
        }
      }
      buf += c;
      i++;
    }
    flush();
  }

  function closingTicks(text, from, count) {
    let i = from;
    while (i < text.length) {
      const j = text.indexOf('`', i);
      if (j < 0) return -1;
      let k = j;
      while (k < text.length && text[k] === '`') k++;
      if (k - j === count) return j;
      i = k;
    }
    return -1;
  }

  // closing finds the delimiter that ends an emphasis opened before from.
  function closing(text, from, delim) {
    const c = delim[0];
    let j = text.indexOf(delim, from);
    while (j >= 0) {
      const before = text[j - 1] || '';
      const after = text[j + delim.length] || '';
      const ok = !/\s/.test(before) &&
        (delim.length === 2 || (before !== c && after !== c)) &&
        !(c === '_' && /[A-Za-z0-9]/.test(after));
      if (ok) return j;
      j = text.indexOf(delim, j + 1);
    }
    return -1;
  }

  // parseLink reads [text](url "title") at i.
  function parseLink(text, i) {
    if (text[i] !== '[') return null;
    let depth = 0;
    let j = i;
    for (; j < text.length; j++) {
      const ch = text[j];
      if (ch === '\\') { j++; continue; }
      if (ch === '[') depth++;
      else if (ch === ']' && --depth === 0) break;
    }
    if (j >= text.length || text[j + 1] !== '(') return null;
    let k = j + 2;
    let parens = 1;
    for (; k < text.length; k++) {
      const ch = text[k];
      if (ch === '\\') { k++; continue; }
      if (ch === '(') parens++;
      else if (ch === ')' && --parens === 0) break;
      else if (ch === '\n') return null;
    }
    if (k >= text.length) return null;
    let target = text.slice(j + 2, k).trim();
    let url = target;
    const angle = /^<([^<>]*)>/.exec(target);
    if (angle) url = angle[1];
    else url = target.split(/\s+/)[0] || '';
    return { text: text.slice(i + 1, j), url: url, end: k + 1 };
  }

  // ---------------------------------------------------------------- tree

  function buildTree() {
    const nodes = new Map();
    const roots = [];
    for (const e of entries) {
      if (typeof e.id === 'string' && !nodes.has(e.id)) nodes.set(e.id, { entry: e, children: [] });
    }
    for (const node of nodes.values()) {
      const p = node.entry.parentId;
      const parent = typeof p === 'string' && p !== node.entry.id ? nodes.get(p) : null;
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
    const time = (n) => {
      const t = new Date(n.entry.timestamp).getTime();
      return isNaN(t) ? 0 : t;
    };
    for (const node of nodes.values()) {
      if (node.children.length > 1) node.children.sort((a, b) => time(a) - time(b));
    }
    return roots;
  }

  const roots = buildTree();

  function activePath(leaf) {
    const ids = new Set();
    let e = byId.get(leaf);
    while (e && !ids.has(e.id)) {
      ids.add(e.id);
      if (typeof e.parentId !== 'string' || e.parentId === e.id) break;
      e = byId.get(e.parentId);
    }
    return ids;
  }

  function pathTo(leaf) {
    const ids = activePath(leaf);
    const path = [];
    let e = byId.get(leaf);
    const seen = new Set();
    while (e && ids.has(e.id) && !seen.has(e.id)) {
      seen.add(e.id);
      path.push(e);
      if (typeof e.parentId !== 'string' || e.parentId === e.id) break;
      e = byId.get(e.parentId);
    }
    return path.reverse();
  }

  // flatten lists the tree depth first, the branch holding the active path
  // first, each row with its ASCII prefix: a chain of single children stays
  // in one column, and every branch point indents its children by one step.
  function flatten(active) {
    const holds = new Map();
    const mark = (root) => {
      const stack = [[root, false]];
      while (stack.length) {
        const [node, done] = stack.pop();
        if (done) {
          let has = active.has(node.entry.id);
          for (const c of node.children) if (holds.get(c)) has = true;
          holds.set(node, has);
        } else {
          stack.push([node, true]);
          for (const c of node.children) stack.push([c, false]);
        }
      }
    };
    roots.forEach(mark);
    const order = (list) => list.slice().sort((a, b) => Number(holds.get(b)) - Number(holds.get(a)));
    const rows = [];
    const stack = [];
    const top = order(roots);
    const many = top.length > 1;
    for (let i = top.length - 1; i >= 0; i--) {
      stack.push({ node: top[i], lead: '', conn: many ? (i === top.length - 1 ? '└─ ' : '├─ ') : '' });
    }
    while (stack.length) {
      const r = stack.pop();
      rows.push({ node: r.node, prefix: r.lead + r.conn });
      const kids = order(r.node.children);
      const lead = r.lead + (r.conn ? (r.conn === '└─ ' ? '   ' : '│  ') : '');
      for (let i = kids.length - 1; i >= 0; i--) {
        const conn = kids.length > 1 ? (i === kids.length - 1 ? '└─ ' : '├─ ') : '';
        stack.push({ node: kids[i], lead: lead, conn: conn });
      }
    }
    return rows;
  }

  const SETTINGS = new Set(['label', 'custom', 'model_change', 'thinking_level_change', 'mode_change',
    'ttsr_injection', 'session_init', 'service_tier_change', 'context_change', 'mcp_tool_selection']);

  function shortPath(p) {
    return str(p).replace(/^\/(home|Users)\/[^/]+/, '~');
  }

  function toolLabel(name, args) {
    const a = isObject(args) ? args : {};
    const path = shortPath(a.path || a.file_path || '');
    switch (name) {
      case 'read': {
        let range = '';
        if (a.offset !== undefined || a.limit !== undefined) {
          const start = num(a.offset) || 1;
          range = ':' + start + (a.limit !== undefined ? '-' + (start + num(a.limit) - 1) : '');
        } else if (typeof a.sel === 'string') {
          range = ':' + a.sel;
        }
        return 'read: ' + path + range;
      }
      case 'write':
      case 'edit':
        return name + ': ' + path;
      case 'bash':
        return 'bash: ' + oneLine(a.command, 50);
      case 'grep':
        return 'grep: /' + str(a.pattern) + '/ in ' + shortPath(a.path || '.');
      case 'find':
        return 'find: ' + str(a.pattern) + ' in ' + shortPath(a.path || '.');
      case 'ls':
        return 'ls: ' + shortPath(a.path || '.');
      default:
        return str(name) + ': ' + oneLine(str(args), 40);
    }
  }

  function hasText(content) {
    return textOf(content).trim().length > 0;
  }

  // nodeText is what a tree row says about an entry.
  function nodeText(e) {
    const m = messageOf(e);
    if (m) {
      switch (m.role) {
        case 'user':
        case 'developer':
          return [m.role, oneLine(textOf(m.content), 100) || '[image]'];
        case 'assistant': {
          const t = oneLine(textOf(m.content), 100);
          if (t) return ['assistant', t];
          if (m.stopReason === 'error') return ['assistant', '[error] ' + oneLine(m.errorMessage, 80)];
          if (m.stopReason === 'aborted') return ['assistant', '[aborted]'];
          const calls = (Array.isArray(m.content) ? m.content : []).filter((b) => isObject(b) && b.type === 'toolCall');
          return ['assistant', calls.length ? '[' + calls.map((b) => str(b.name)).join(', ') + ']' : '[no content]'];
        }
        case 'toolResult': {
          const call = toolCalls.get(m.toolCallId);
          return ['tool', '[' + (call ? toolLabel(call.name, call.arguments) : 'tool: ' + str(m.toolName)) + ']'];
        }
        case 'bashExecution':
          return ['tool', '[bash]: ' + oneLine(m.command, 80)];
        case 'pythonExecution':
          return ['tool', '[python]: ' + oneLine(m.code, 80)];
        case 'fileMention':
          return ['tool', '[files: ' + (Array.isArray(m.files) ? m.files.map((f) => shortPath(isObject(f) ? f.path : '')).join(', ') : '') + ']'];
        case 'custom':
        case 'hookMessage':
          return ['tool', '[' + str(m.customType) + ']: ' + oneLine(textOf(m.content), 80)];
        default:
          return ['tool', '[' + str(m.role) + ']'];
      }
    }
    switch (e.type) {
      case 'compaction':
        return ['', '[compaction: ' + formatTokens(num(e.tokensBefore)) + ' tokens]'];
      case 'branch_summary':
        return ['', '[branch summary]: ' + oneLine(e.summary, 80)];
      case 'custom_message':
        return ['', '[' + str(e.customType) + ']: ' + oneLine(textOf(e.content), 80)];
      case 'custom':
        return ['', '[custom: ' + str(e.customType) + ']'];
      case 'model_change':
        return ['', '[model: ' + str(e.model) + ']'];
      case 'thinking_level_change':
        return ['', '[thinking: ' + str(e.thinkingLevel) + ']'];
      case 'mode_change':
        return ['', '[mode: ' + str(e.mode) + ']'];
      case 'label':
        return ['', '[label ' + str(e.targetId) + ': ' + str(e.label) + ']'];
      case 'service_tier_change':
        return ['', '[service tier: ' + str(e.serviceTier) + ']'];
      case 'context_change':
        return ['', '[context: ' + str(e.name) + ']'];
      case 'ttsr_injection':
        return ['', '[rules: ' + str(e.injectedRules) + ']'];
      case 'mcp_tool_selection':
        return ['', '[mcp tools: ' + str(e.selectedToolNames) + ']'];
      case 'session_init':
        return ['', '[session init]'];
      default:
        return ['', '[' + str(e.type) + ']'];
    }
  }

  function searchText(e) {
    const parts = [labels.get(e.id) || ''];
    const m = messageOf(e);
    if (m) {
      parts.push(str(m.role), textOf(m.content), str(m.command), str(m.code), str(m.customType), str(m.toolName));
    } else {
      parts.push(str(e.type), str(e.customType), textOf(e.content), str(e.summary), str(e.model),
        str(e.thinkingLevel), str(e.mode), str(e.label));
    }
    return parts.join(' ').toLowerCase();
  }

  function visible(e, leaf, tokens) {
    if (e.id === leaf) return true;
    const m = messageOf(e);
    if (filterMode !== 'all' && m && m.role === 'assistant' && !hasText(m.content) &&
        (!m.stopReason || m.stopReason === 'stop' || m.stopReason === 'toolUse')) {
      return false;
    }
    let pass;
    switch (filterMode) {
      case 'user-only':
        pass = !!m && m.role === 'user';
        break;
      case 'no-tools':
        pass = !SETTINGS.has(e.type) && !(m && m.role === 'toolResult');
        break;
      case 'labeled-only':
        pass = labels.has(e.id);
        break;
      case 'all':
        pass = true;
        break;
      default:
        pass = !SETTINGS.has(e.type);
    }
    if (!pass) return false;
    if (tokens.length) {
      const t = searchText(e);
      return tokens.every((tok) => t.indexOf(tok) >= 0);
    }
    return true;
  }

  function renderTree() {
    const tree = document.getElementById('tree');
    const active = activePath(currentLeaf);
    const tokens = searchQuery.toLowerCase().split(/\s+/).filter(Boolean);
    const rows = flatten(active);
    const frag = document.createDocumentFragment();
    let shown = 0;
    for (const row of rows) {
      const e = row.node.entry;
      if (!visible(e, currentLeaf, tokens)) continue;
      shown++;
      let kind = '';
      let text;
      try {
        [kind, text] = nodeText(e);
      } catch (err) {
        text = '[' + str(e.type) + ']';
      }
      const onPath = active.has(e.id);
      const label = labels.get(e.id);
      const div = el('div', {
        class: 'tree-node' + (onPath ? ' active-path' : '') + (e.id === currentLeaf ? ' selected' : ''),
        'data-id': e.id,
        title: e.id,
      },
      el('span', { class: 'prefix', text: row.prefix }),
      el('span', { class: 'marker', text: onPath ? '• ' : '  ' }),
      label ? el('span', { class: 'tag', text: '[' + label + '] ' }) : null,
      kind ? el('span', { class: 'role-' + kind, text: kind === 'tool' ? text : kind + ': ' }) : null,
      kind === 'tool' ? null : text);
      frag.appendChild(div);
    }
    tree.textContent = '';
    tree.appendChild(frag);
    document.getElementById('tree-status').textContent = shown + ' / ' + entries.length + ' entries';
  }

  // ---------------------------------------------------------------- header

  function renderHeader() {
    const box = document.getElementById('session-header');
    const counts = { user: 0, assistant: 0, toolResult: 0, other: 0 };
    let toolCallCount = 0;
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
    const models = [];
    const addModel = (m) => {
      if (m && models.indexOf(m) < 0) models.push(m);
    };
    for (const e of entries) {
      const m = messageOf(e);
      if (e.type === 'model_change') addModel(str(e.model));
      if (!m) continue;
      if (m.role === 'user' || m.role === 'assistant' || m.role === 'toolResult') counts[m.role]++;
      else counts.other++;
      if (m.role !== 'assistant') continue;
      if (m.provider || m.model) addModel(str(m.provider) + '/' + str(m.model));
      if (Array.isArray(m.content)) toolCallCount += m.content.filter((b) => isObject(b) && b.type === 'toolCall').length;
      const u = isObject(m.usage) ? m.usage : {};
      usage.input += num(u.input);
      usage.output += num(u.output);
      usage.cacheRead += num(u.cacheRead);
      usage.cacheWrite += num(u.cacheWrite);
      usage.cost += isObject(u.cost) ? num(u.cost.total) : 0;
    }
    const title = str(header.title) || 'Session ' + str(header.id);
    const grid = el('div', { class: 'meta-grid' });
    const row = (k, v) => {
      if (v === '' || v === undefined) return;
      grid.appendChild(el('span', { text: k }));
      grid.appendChild(el('span', { class: 'v', text: v }));
    };
    row('Session', str(header.id));
    row('Date', formatTime(header.timestamp));
    row('Directory', str(header.cwd));
    row('Models', models.join(', '));
    row('Messages', counts.user + ' user, ' + counts.assistant + ' assistant, ' + counts.toolResult + ' tool results' +
      (counts.other ? ', ' + counts.other + ' other' : ''));
    row('Tool calls', String(toolCallCount));
    row('Tokens', '↑' + formatTokens(usage.input) + ' ↓' + formatTokens(usage.output) +
      ' R' + formatTokens(usage.cacheRead) + ' W' + formatTokens(usage.cacheWrite));
    row('Cost', '$' + usage.cost.toFixed(3));
    row('Entries', String(entries.length));
    add(box, [el('h1', { text: title }), grid]);
    if (systemPrompt) {
      box.appendChild(el('details', { class: 'msg system-prompt' },
        el('summary', { text: 'System prompt' }),
        el('div', { class: 'plain', text: systemPrompt })));
    }
    if (tools && tools.length) {
      const dl = el('dl', { class: 'tools-list' });
      for (const t of tools) {
        dl.appendChild(el('dt', { text: str(t.name) }));
        dl.appendChild(el('dd', { text: str(t.description) }));
      }
      box.appendChild(el('details', { class: 'msg tools' }, el('summary', { text: tools.length + ' tools' }), dl));
    }
  }

  // ---------------------------------------------------------------- messages

  const PREVIEW_LINES = 10;

  // output shows text with its first lines visible and the rest behind a
  // toggle (Ctrl+O toggles them all); the whole text is always in the page.
  function output(text, lang) {
    const s = str(text).replace(/\n+$/, '');
    const lines = s.split('\n');
    const box = el('div', { class: 'output' + (toolsExpanded ? ' expanded' : '') });
    const code = el('code');
    if (lines.length > PREVIEW_LINES) {
      highlight(code, lines.slice(0, PREVIEW_LINES).join('\n'), lang);
      const more = el('span', { class: 'more' });
      highlight(more, '\n' + lines.slice(PREVIEW_LINES).join('\n'), lang);
      code.appendChild(more);
      box.appendChild(el('pre', null, code));
      const rest = lines.length - PREVIEW_LINES;
      box.appendChild(el('button', {
        type: 'button',
        class: 'expand',
        onclick: () => box.classList.toggle('expanded'),
      }, el('span', { class: 'when-collapsed', text: '… ' + rest + ' more line' + (rest === 1 ? '' : 's') }),
      el('span', { class: 'when-expanded', text: 'Show less' })));
    } else {
      highlight(code, s, lang);
      box.appendChild(el('pre', null, code));
    }
    return box;
  }

  function msgBox(e, cls, role, extra) {
    const m = messageOf(e);
    const box = el('div', { class: 'msg ' + cls, 'data-id': e.id });
    const ts = m && m.timestamp !== undefined ? m.timestamp : e.timestamp;
    const link = new URLSearchParams();
    if (currentLeaf) link.set('leafId', currentLeaf);
    link.set('targetId', str(e.id));
    box.appendChild(el('div', { class: 'msg-head' },
      el('span', { class: 'role', text: role }),
      extra ? el('span', { text: extra }) : null,
      labels.has(e.id) ? el('span', { class: 'tag', text: '[' + labels.get(e.id) + ']' }) : null,
      el('span', { class: 'time', text: formatTime(ts) }),
      el('a', { class: 'link', href: '?' + link.toString(), title: 'Link to this message', text: '#' })));
    return box;
  }

  function contentBlocks(box, content) {
    if (typeof content === 'string') {
      box.appendChild(markdown(content));
      return;
    }
    if (!Array.isArray(content)) return;
    for (const b of content) {
      if (!isObject(b)) continue;
      if (b.type === 'text') box.appendChild(markdown(b.text));
      else if (b.type === 'image') box.appendChild(image(b));
    }
  }

  function resultText(r) {
    return r ? textOf(r.content) : '';
  }

  function resultImages(box, r) {
    if (r && Array.isArray(r.content)) {
      for (const b of r.content) if (isObject(b) && b.type === 'image') box.appendChild(image(b));
    }
  }

  function toolCall(call, result) {
    const name = str(call.name);
    const args = isObject(call.arguments) ? call.arguments : {};
    const path = str(args.path || args.file_path);
    const det = el('details', { class: 'tool' + (result && result.isError ? ' error' : '') });
    det.open = true;
    let summary;
    switch (name) {
      case 'bash':
        summary = ['$ ', str(args.command)];
        break;
      case 'read':
      case 'write':
      case 'edit':
        summary = [el('span', { class: 'tool-label', text: name }), ' ', toolLabel(name, args).slice(name.length + 2)];
        break;
      default:
        summary = [el('span', { class: 'tool-label', text: name }), ' ', oneLine(JSON.stringify(call.arguments === undefined ? {} : call.arguments), 200)];
    }
    det.appendChild(el('summary', null, summary));
    const intent = str(call.intent || args._i);
    if (intent) det.appendChild(el('div', { class: 'note', text: intent }));
    const text = resultText(result);
    switch (name) {
      case 'bash':
        if (text) det.appendChild(output(text, ''));
        break;
      case 'read':
        if (text) det.appendChild(output(text, langOfPath(path)));
        break;
      case 'write':
        if (typeof args.content === 'string') det.appendChild(output(args.content, langOfPath(path)));
        if (text) det.appendChild(el('div', { class: 'note', text: text }));
        break;
      case 'edit': {
        const details = result && isObject(result.details) ? result.details : {};
        if (typeof details.diff === 'string' && details.diff) det.appendChild(output(details.diff, 'diff'));
        else if (Object.keys(args).some((k) => k !== 'path' && k !== '_i')) det.appendChild(output(JSON.stringify(args, null, 2), 'json'));
        if (text) det.appendChild(el('div', { class: result.isError ? 'error-text' : 'note', text: text }));
        break;
      }
      default:
        if (Object.keys(args).length) det.appendChild(output(JSON.stringify(call.arguments, null, 2), 'json'));
        if (text) det.appendChild(output(text, ''));
    }
    resultImages(det, result);
    if (!result) det.appendChild(el('div', { class: 'note', text: '(no result)' }));
    else if (result.prunedAt !== undefined) det.appendChild(el('div', { class: 'note', text: '(output pruned)' }));
    return det;
  }

  function thinking(text) {
    const det = el('details', { class: 'thinking' });
    det.open = thinkingOpen;
    det.appendChild(el('summary', { text: 'Thinking' }));
    det.appendChild(el('div', { class: 'thinking-text', text: str(text) }));
    return det;
  }

  // results pairs each tool call on the path with the first later tool
  // result on the path that carries its id.
  function pairResults(path) {
    const queues = new Map();
    path.forEach((e, i) => {
      const m = messageOf(e);
      if (m && m.role === 'toolResult') {
        const k = str(m.toolCallId);
        if (!queues.has(k)) queues.set(k, []);
        queues.get(k).push(i);
      }
    });
    const paired = new Map();
    const used = new Set();
    path.forEach((e, i) => {
      const m = messageOf(e);
      if (!m || m.role !== 'assistant' || !Array.isArray(m.content)) return;
      m.content.forEach((b, j) => {
        if (!isObject(b) || b.type !== 'toolCall') return;
        const q = queues.get(str(b.id));
        while (q && q.length && q[0] < i) q.shift();
        if (q && q.length) {
          const k = q.shift();
          used.add(k);
          paired.set(e.id + '\u0000' + j, messageOf(path[k]));
        }
      });
    });
    return { paired: paired, used: used };
  }

  function renderMessage(e, index, pairs) {
    const m = messageOf(e);
    if (m) {
      switch (m.role) {
        case 'user':
        case 'developer': {
          const box = msgBox(e, m.role, m.role === 'user' ? 'User' : 'Developer');
          contentBlocks(box, m.content);
          return box;
        }
        case 'assistant': {
          const box = msgBox(e, 'assistant', 'Assistant', [m.provider, m.model].filter(Boolean).map(str).join('/'));
          (Array.isArray(m.content) ? m.content : []).forEach((b, j) => {
            if (!isObject(b)) return;
            if (b.type === 'text') box.appendChild(markdown(b.text));
            else if (b.type === 'thinking') box.appendChild(thinking(b.thinking));
            else if (b.type === 'redactedThinking') box.appendChild(el('div', { class: 'note', text: '[redacted thinking]' }));
            else if (b.type === 'toolCall') box.appendChild(toolCall(b, pairs.paired.get(e.id + '\u0000' + j)));
            else if (b.type === 'image') box.appendChild(image(b));
          });
          if (typeof m.content === 'string') box.appendChild(markdown(m.content));
          if (m.stopReason === 'error') box.appendChild(el('div', { class: 'error-text', text: 'Error: ' + (str(m.errorMessage) || 'request failed') }));
          else if (m.stopReason === 'aborted') box.appendChild(el('div', { class: 'error-text', text: 'Aborted' + (m.errorMessage ? ': ' + str(m.errorMessage) : '') }));
          else if (m.stopReason === 'length') box.appendChild(el('div', { class: 'note', text: '(stopped at the output limit)' }));
          return box;
        }
        case 'toolResult': {
          if (pairs.used.has(index)) return null;
          const box = msgBox(e, 'tool-result', 'Tool result', str(m.toolName) + (m.isError ? ' (error)' : ''));
          const text = textOf(m.content);
          if (text) box.appendChild(output(text, ''));
          resultImages(box, m);
          return box;
        }
        case 'bashExecution':
        case 'pythonExecution': {
          const bash = m.role === 'bashExecution';
          const box = msgBox(e, 'execution', bash ? 'Bash' : 'Python', m.excludeFromContext ? '(not sent to the model)' : '');
          box.appendChild(bash ? el('pre', null, el('code', { text: '$ ' + str(m.command) })) : codeBlock(str(m.code), 'py'));
          if (m.output) box.appendChild(output(m.output, ''));
          let status = '';
          if (m.cancelled) status = '(cancelled)';
          else if (m.exitCode !== undefined && m.exitCode !== null && m.exitCode !== 0) status = 'exit code ' + str(m.exitCode);
          if (m.truncated) status += (status ? ', ' : '') + 'output truncated';
          if (status) box.appendChild(el('div', { class: m.exitCode ? 'error-text' : 'note', text: status }));
          return box;
        }
        case 'fileMention': {
          const box = msgBox(e, 'file-mention', 'Files');
          for (const f of Array.isArray(m.files) ? m.files : []) {
            if (!isObject(f)) continue;
            const det = el('details', { class: 'tool' }, el('summary', null, el('span', { class: 'tool-label', text: '@' }), str(f.path)));
            if (f.skippedReason) det.appendChild(el('div', { class: 'note', text: 'skipped: ' + str(f.skippedReason) }));
            if (typeof f.content === 'string' && f.content) det.appendChild(output(f.content, langOfPath(f.path)));
            if (isObject(f.image)) det.appendChild(image(f.image));
            box.appendChild(det);
          }
          return box;
        }
        case 'custom':
        case 'hookMessage': {
          if (m.display === false) return null;
          const box = msgBox(e, 'custom', '[' + str(m.customType) + ']');
          contentBlocks(box, m.content);
          return box;
        }
        default: {
          const box = msgBox(e, 'other', str(m.role));
          const t = textOf(m.content);
          if (t) box.appendChild(markdown(t));
          return box;
        }
      }
    }
    switch (e.type) {
      case 'compaction': {
        const box = msgBox(e, 'summary-block', 'Compaction', formatTokens(num(e.tokensBefore)) + ' tokens before');
        const det = el('details', { class: 'compaction' }, el('summary', { text: 'Summary' }), markdown(e.summary));
        det.open = toolsExpanded;
        box.appendChild(det);
        return box;
      }
      case 'branch_summary': {
        const box = msgBox(e, 'summary-block', 'Branch summary', e.fromId ? 'from ' + str(e.fromId) : '');
        box.appendChild(markdown(e.summary));
        return box;
      }
      case 'custom_message': {
        if (!e.display) return null;
        const box = msgBox(e, 'custom', '[' + str(e.customType) + ']');
        contentBlocks(box, e.content);
        return box;
      }
      case 'model_change':
        return msgBox(e, 'small', 'Model', str(e.model));
      case 'thinking_level_change':
        return msgBox(e, 'small', 'Thinking level', str(e.thinkingLevel));
      case 'mode_change':
        return msgBox(e, 'small', 'Mode', str(e.mode));
      default:
        return null;
    }
  }

  // A path of up to EAGER entries is drawn whole; a longer one from its last
  // WINDOW entries (or from just before the target), with a button that
  // draws earlier entries, EARLIER at a time, so that a session of many
  // thousand messages opens quickly.
  const EAGER = 1000;
  const WINDOW = 500;
  const EARLIER = 2000;

  function renderRange(path, pairs, from, to) {
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) {
      let node;
      try {
        node = renderMessage(path[i], i, pairs);
      } catch (err) {
        // One entry of an unexpected shape must not cost the rest of the page.
        node = el('div', { class: 'msg error-text', 'data-id': path[i].id, text: 'Entry ' + str(path[i].id) + ' cannot be shown: ' + err });
      }
      if (node) frag.appendChild(node);
    }
    return frag;
  }

  function earlierButton(path, pairs, from) {
    const button = el('button', { type: 'button', class: 'earlier', text: 'Show ' + from + ' earlier entries' });
    button.addEventListener('click', () => {
      const start = Math.max(0, from - EARLIER);
      const frag = document.createDocumentFragment();
      if (start > 0) frag.appendChild(earlierButton(path, pairs, start));
      frag.appendChild(renderRange(path, pairs, start, from));
      const content = document.getElementById('content');
      const below = content.scrollHeight - content.scrollTop;
      button.replaceWith(frag);
      content.scrollTop = content.scrollHeight - below;
    });
    return button;
  }

  function renderMessages(target) {
    const main = document.getElementById('messages');
    const path = currentLeaf ? pathTo(currentLeaf) : [];
    const pairs = pairResults(path);
    let from = path.length > EAGER ? path.length - WINDOW : 0;
    const at = target ? path.findIndex((e) => e.id === target) : -1;
    if (at >= 0 && at < from) from = Math.max(0, at - 20);
    const frag = renderRange(path, pairs, from, path.length);
    main.textContent = '';
    if (from > 0) main.appendChild(earlierButton(path, pairs, from));
    if (!frag.childNodes.length && from === 0) main.appendChild(el('div', { class: 'empty', text: 'No messages.' }));
    main.appendChild(frag);
  }

  // ---------------------------------------------------------------- actions

  function scrollToBottom() {
    const content = document.getElementById('content');
    content.scrollTop = content.scrollHeight;
    window.scrollTo(0, document.body.scrollHeight);
  }

  function showTarget(id) {
    for (const node of document.querySelectorAll('#messages .msg')) {
      if (node.getAttribute('data-id') === id) {
        node.scrollIntoView({ block: 'center' });
        node.classList.add('highlight');
        setTimeout(() => node.classList.remove('highlight'), 2000);
        return true;
      }
    }
    return false;
  }

  function selectLeaf(id, target) {
    currentLeaf = id;
    renderTree();
    renderMessages(target);
    try {
      const p = new URLSearchParams(window.location.search);
      if (id) p.set('leafId', id);
      p.delete('targetId');
      history.replaceState(null, '', '?' + p.toString());
    } catch (err) {
      // file: pages may refuse history changes; the page works without them
    }
    if (!(target && showTarget(target))) scrollToBottom();
  }

  function setThinking(open) {
    thinkingOpen = open;
    for (const d of document.querySelectorAll('details.thinking')) d.open = open;
    document.getElementById('toggle-thinking').setAttribute('aria-pressed', String(open));
  }

  function setTools(expanded) {
    toolsExpanded = expanded;
    for (const o of document.querySelectorAll('.output')) o.classList.toggle('expanded', expanded);
    for (const d of document.querySelectorAll('details.compaction')) d.open = expanded;
    document.getElementById('toggle-tools').setAttribute('aria-pressed', String(expanded));
  }

  function clearSearch() {
    const box = document.getElementById('search');
    box.value = '';
    searchQuery = '';
    selectLeaf(defaultLeaf, null);
  }

  document.getElementById('tree').addEventListener('click', (ev) => {
    const row = ev.target.closest('.tree-node');
    if (row) selectLeaf(row.getAttribute('data-id'), null);
  });
  document.getElementById('search').addEventListener('input', (ev) => {
    searchQuery = ev.target.value;
    renderTree();
  });
  for (const b of document.querySelectorAll('#filters button')) {
    b.addEventListener('click', () => {
      filterMode = b.getAttribute('data-filter');
      for (const o of document.querySelectorAll('#filters button')) o.classList.toggle('active', o === b);
      renderTree();
    });
  }
  document.getElementById('toggle-thinking').addEventListener('click', () => setThinking(!thinkingOpen));
  document.getElementById('toggle-tools').addEventListener('click', () => setTools(!toolsExpanded));
  document.getElementById('toggle-sidebar').addEventListener('click', () => document.body.classList.toggle('sidebar-hidden'));
  document.addEventListener('keydown', (ev) => {
    const key = ev.key.toLowerCase();
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && key === 't') {
      ev.preventDefault();
      setThinking(!thinkingOpen);
    } else if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && key === 'o') {
      ev.preventDefault();
      setTools(!toolsExpanded);
    } else if (key === 'escape') {
      clearSearch();
    }
  });

  // The sidebar can be dragged wider; a double click restores it.
  const resizer = document.getElementById('resizer');
  const setWidth = (w) => document.documentElement.style.setProperty('--sidebar-width', w + 'px');
  try {
    const saved = parseInt(localStorage.getItem('xcsh-export-sidebar') || '', 10);
    if (saved >= 200 && saved <= 1200) setWidth(saved);
  } catch (err) {
    // storage may be unavailable for file: pages
  }
  resizer.addEventListener('mousedown', (ev) => {
    ev.preventDefault();
    const move = (e) => setWidth(Math.max(200, Math.min(1200, e.clientX)));
    const up = (e) => {
      document.removeEventListener('mousemove', move);
      document.removeEventListener('mouseup', up);
      try { localStorage.setItem('xcsh-export-sidebar', String(Math.max(200, Math.min(1200, e.clientX)))); } catch (err) { /* no storage */ }
    };
    document.addEventListener('mousemove', move);
    document.addEventListener('mouseup', up);
  });
  resizer.addEventListener('dblclick', () => {
    setWidth(400);
    try { localStorage.removeItem('xcsh-export-sidebar'); } catch (err) { /* no storage */ }
  });

  renderHeader();
  renderTree();
  renderMessages(params.targetId);
  document.getElementById('toggle-thinking').setAttribute('aria-pressed', 'true');
  document.getElementById('toggle-tools').setAttribute('aria-pressed', 'false');
  if (!(params.targetId && showTarget(params.targetId))) scrollToBottom();
})();
