// The accessibility audit test_web_browser.py runs in each page (see AUDIT there).
() => {
  const rgba = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c;
    }
    return [255, 255, 255];
  };
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el || el.closest("[hidden], script, style, option") || el.disabled) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === "hidden") continue;
    const fg = lum(rgba(getComputedStyle(el).color)), bg = lum(behind(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) bad.push(`contrast ${ratio.toFixed(2)}: ${el.tagName}.${el.className} "${node.textContent.trim().slice(0, 30)}"`);
  }
  for (const field of document.querySelectorAll("input, textarea, select")) {
    const named = field.getAttribute("aria-label") || field.closest("label") || (field.id && document.querySelector(`label[for="${field.id}"]`));
    if (!named && field.type !== "hidden") bad.push(`unlabelled ${field.tagName} ${field.name || field.id}`);
  }
  for (const button of document.querySelectorAll("button")) {
    if (!(button.textContent.trim() || button.getAttribute("aria-label"))) bad.push("a button with no name");
  }
  if (!document.querySelector("main") || !document.querySelector("nav[aria-label]")) bad.push("landmarks");
  if (!document.documentElement.lang) bad.push("no lang");
  return bad;
}
