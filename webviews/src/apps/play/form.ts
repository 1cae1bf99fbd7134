import { h } from "../../shared/dom";
import { collectArguments, type FormField, formFields, initialValue, type PlayAction, type PlayTool, type RawValue } from "./protocol";

/** Reads one field's value back from its control. */
type Reader = () => RawValue;

/**
 * The arguments form of one tool, generated from its JSON Schema: a control per property
 * (text, number, checkbox, select, one-per-line list, JSON), required marks and descriptions,
 * and a raw-JSON editor for anything the form cannot express (or when the user prefers it).
 */
export function toolForm(tool: PlayTool, send: (a: PlayAction) => void): HTMLElement {
  const { fields, raw: rawOnly } = formFields(tool.parameters);
  const readers = new Map<string, Reader>();
  const errors = new Map<string, HTMLElement>();
  const rows = fields.map((f) => fieldRow(f, readers, errors));
  const rawBox = h("textarea", { class: "raw-json", rows: 6, spellcheck: "false", "aria-label": "Arguments as JSON" }, "{}");
  const rawRow = h("div", { class: "field raw" }, h("label", {}, "Arguments (JSON object)"), rawBox);
  const useRaw = h("input", { type: "checkbox", id: `raw-${tool.name}` }) as HTMLInputElement;
  const fieldsBox = h("div", { class: "fields" }, ...rows);
  const showRaw = (on: boolean) => {
    if (on) rawBox.value = JSON.stringify(currentValues(), null, 2);
    fieldsBox.hidden = on;
    rawRow.hidden = !on;
  };
  const currentValues = (): Record<string, unknown> => {
    const r = collectArguments(fields, Object.fromEntries([...readers].map(([k, read]) => [k, read()])));
    return r.ok ? r.value : {};
  };
  useRaw.checked = rawOnly;
  useRaw.addEventListener("change", () => showRaw(useRaw.checked));
  showRaw(rawOnly);
  const note = h("textarea", { class: "note", rows: 2, placeholder: "Optional: what the agent says with this call" });
  const problem = h("div", { class: "form-error", role: "alert" });
  const submit = h("button", { class: "primary", type: "submit" }, `Call ${tool.name}`);
  const form = h(
    "form",
    // Our own checks, with messages by the field, instead of the browser's bubbles (which stop the submit silently).
    { class: "tool-form", "data-tool": tool.name, novalidate: true },
    h("p", { class: "tool-desc" }, tool.description),
    fieldsBox,
    rawRow,
    h("div", { class: "raw-toggle" }, useRaw, h("label", { for: `raw-${tool.name}` }, "Edit the arguments as raw JSON")),
    h("div", { class: "field" }, h("label", {}, "Message (optional)"), note),
    problem,
    h("div", { class: "actions" }, submit),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    problem.textContent = "";
    for (const e of errors.values()) e.textContent = "";
    const content = note.value.trim() ? { content: note.value } : {};
    if (useRaw.checked) {
      send({ kind: "tool", name: tool.name, arguments: rawBox.value, ...content });
      return;
    }
    const r = collectArguments(fields, Object.fromEntries([...readers].map(([k, read]) => [k, read()])));
    if (!r.ok) {
      for (const [name, msg] of Object.entries(r.errors)) {
        const el = errors.get(name);
        if (el) el.textContent = msg;
      }
      problem.textContent = "Fix the marked fields.";
      return;
    }
    send({ kind: "tool", name: tool.name, arguments: r.value, ...content });
  });
  return form;
}

function fieldRow(f: FormField, readers: Map<string, Reader>, errors: Map<string, HTMLElement>): HTMLElement {
  const id = `f-${f.name}`;
  const init = initialValue(f);
  let control: HTMLElement;
  switch (f.kind) {
    case "boolean": {
      const c = h("input", { type: "checkbox", id, name: f.name }) as HTMLInputElement;
      c.checked = init === true;
      readers.set(f.name, () => c.checked);
      control = c;
      break;
    }
    case "enum": {
      const s = h(
        "select",
        { id, name: f.name },
        f.required ? null : h("option", { value: "" }, "(none)"),
        ...(f.options ?? []).map((o, i) => h("option", { value: String(i) }, typeof o === "string" ? o : JSON.stringify(o))),
      );
      s.value = String(init);
      readers.set(f.name, () => s.value);
      control = s;
      break;
    }
    case "number":
    case "integer": {
      const c = h("input", { type: "number", id, name: f.name, step: f.kind === "integer" ? "1" : "any" }) as HTMLInputElement;
      c.value = String(init);
      readers.set(f.name, () => c.value);
      control = c;
      break;
    }
    default: {
      // Strings get a text area: tool arguments are often file contents or commands.
      const hint = f.kind === "string-list" ? "one per line" : f.kind === "json" ? "JSON" : "";
      const c = h("textarea", {
        id,
        name: f.name,
        rows: f.kind === "string" ? 2 : 3,
        spellcheck: "false",
        placeholder: hint,
      }) as HTMLTextAreaElement;
      c.value = String(init);
      readers.set(f.name, () => c.value);
      control = c;
    }
  }
  const err = h("span", { class: "field-error" });
  errors.set(f.name, err);
  return h(
    "div",
    { class: `field kind-${f.kind}` },
    h(
      "label",
      { for: id },
      h("code", {}, f.name),
      f.required ? h("span", { class: "required", title: "required" }, " *") : null,
      h("span", { class: "type" }, ` ${f.kind}`),
      err,
    ),
    control,
    f.description ? h("div", { class: "desc" }, f.description) : null,
  );
}
