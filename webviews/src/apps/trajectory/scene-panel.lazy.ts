import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import type { SceneNode } from "../../../../src/core/schema/trajectory";
import type { HostApi } from "../../shared/api";
import { clear, h, isDark } from "../../shared/dom";
import { renderImage } from "../../shared/image-dom";
import type { CheckResult, SceneAtRow } from "./protocol";
import { visibleName } from "../../../../src/core/view/model/visible-text";

const DEG = Math.PI / 180;

/**
 * A unit primitive scaled to the node's dimensions along its own axes. The scene
 * domain is Z-up and its cylinders and cones stand along Z (three's stand along Y).
 */
function geometryFor(n: SceneNode): THREE.BufferGeometry | null {
  const [x, y, z] = n.dimensions.map((d) => Math.max(d, 0.002)) as [number, number, number];
  const kind = n.kind.toLowerCase();
  if (kind === "empty") return null;
  if (kind.includes("sphere")) return new THREE.SphereGeometry(0.5, 24, 16).scale(x, y, z);
  if (kind.includes("cylinder")) return new THREE.CylinderGeometry(0.5, 0.5, 1, 24).rotateX(Math.PI / 2).scale(x, y, z);
  if (kind.includes("cone")) return new THREE.ConeGeometry(0.5, 1, 24).rotateX(Math.PI / 2).scale(x, y, z);
  if (kind.includes("torus")) {
    const tube = Math.min(z, x / 2) / 2;
    return new THREE.TorusGeometry(x / 2 - tube, tube, 12, 32).scale(1, y / x, 1);
  }
  return new THREE.BoxGeometry(x, y, z);
}

function safeColor(c: string | undefined): THREE.Color {
  const color = new THREE.Color(0x9aa7b8);
  if (c && /^#?[0-9a-f]{6}$/i.test(c)) color.set(c.startsWith("#") ? c : `#${c}`);
  return color;
}

/**
 * The scene at the selected step in three.js: each object an oriented box (or its
 * primitive) at its world transform, orbit controls, a grid, a click shows the object's
 * properties, objects named by failing checks outlined in red. A scrubber moves through
 * the steps that changed the scene; `render_view` images sit beside it.
 */
export class ScenePanel {
  readonly el: HTMLElement;
  private readonly canvasHost = h("div", { class: "scene-canvas" });
  private readonly side = h("div", { class: "scene-side" });
  private readonly slider = h("input", { type: "range", min: 0, max: 0, value: 0, "aria-label": "step" });
  private readonly stepLabel = h("span", { class: "meta-item" });
  private renderer: THREE.WebGLRenderer | null = null;
  private readonly scene = new THREE.Scene();
  private readonly camera = new THREE.PerspectiveCamera(50, 1, 0.01, 1000);
  private controls: OrbitControls | null = null;
  private readonly objects = new THREE.Group();
  private selected: string | null = null;
  private data: SceneAtRow | null = null;
  private sceneRows: number[] = [];
  private framed = false;
  onScrub: (row: number) => void = () => {};

  constructor(
    private readonly api: HostApi,
    private readonly file: string,
  ) {
    this.slider.addEventListener("input", () => {
      const row = this.sceneRows[Number(this.slider.value)];
      if (row !== undefined) {
        void this.showRow(row);
        this.onScrub(row);
      }
    });
    this.el = h(
      "div",
      { class: "panel scene-panel" },
      h(
        "div",
        { class: "scene-wrap" },
        this.canvasHost,
        h("div", { class: "scrubber" }, h("span", {}, "Step"), this.slider, this.stepLabel),
      ),
      this.side,
    );
    this.scene.add(this.objects);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x444455, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(4, 8, 5);
    this.scene.add(sun);
    // Z is up in the scene domain: the grid lies in the XY plane (the floor, z = 0).
    const grid = new THREE.GridHelper(10, 20, 0x888888, 0x555555);
    grid.rotation.x = Math.PI / 2;
    grid.name = "grid";
    this.camera.up.set(0, 0, 1);
    this.scene.add(grid);
    this.scene.add(new THREE.AxesHelper(0.6));
  }

  setSceneRows(rows: number[]): void {
    this.sceneRows = rows;
    this.slider.max = String(Math.max(0, rows.length - 1));
  }

  private ensureRenderer(): void {
    if (this.renderer) return;
    const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio);
    this.scene.background = new THREE.Color(isDark() ? 0x1b1d22 : 0xf3f3f3);
    this.canvasHost.appendChild(renderer.domElement);
    this.renderer = renderer;
    this.camera.position.set(3.6, -3.2, 2.6);
    this.controls = new OrbitControls(this.camera, renderer.domElement);
    this.controls.addEventListener("change", () => this.draw());
    new ResizeObserver(() => this.resize()).observe(this.canvasHost);
    let down: { x: number; y: number } | null = null;
    renderer.domElement.addEventListener("pointerdown", (e) => {
      down = { x: e.clientX, y: e.clientY };
    });
    renderer.domElement.addEventListener("pointerup", (e) => {
      // A drag orbits; only a click (no movement) selects.
      if (down && Math.hypot(e.clientX - down.x, e.clientY - down.y) < 4) this.pick(e);
      down = null;
    });
  }

  private resize(): void {
    if (!this.renderer) return;
    const w = this.canvasHost.clientWidth || 1;
    const hgt = this.canvasHost.clientHeight || 1;
    this.renderer.setSize(w, hgt, false);
    this.camera.aspect = w / hgt;
    this.camera.updateProjectionMatrix();
    this.draw();
  }

  private draw(): void {
    this.renderer?.render(this.scene, this.camera);
  }

  /** Shows the scene as it was at `row` (the last snapshot at or before it). */
  async showRow(row: number): Promise<void> {
    this.ensureRenderer();
    this.data = await this.api.request("scene", { file: this.file, row });
    const idx = this.sceneRows.indexOf(this.data.row ?? -1);
    if (idx >= 0) this.slider.value = String(idx);
    this.stepLabel.textContent =
      this.data.row === null ? "no scene yet" : `step ${this.data.row} · ${this.data.scene?.nodes.length ?? 0} objects`;
    this.build();
    this.resize();
    this.renderSide();
  }

  private failing(): Map<string, CheckResult[]> {
    const m = new Map<string, CheckResult[]>();
    for (const c of this.data?.checks ?? []) if (!c.passed) for (const t of c.targets) m.set(t, [...(m.get(t) ?? []), c]);
    return m;
  }

  private build(): void {
    for (const child of [...this.objects.children]) {
      this.objects.remove(child);
      child.traverse((o) => {
        if (o instanceof THREE.Mesh || o instanceof THREE.LineSegments) {
          o.geometry.dispose();
          (o.material as THREE.Material).dispose();
        }
      });
    }
    const failing = this.failing();
    for (const n of this.data?.scene?.nodes ?? []) {
      const geo = geometryFor(n);
      if (!geo) continue;
      const bad = failing.has(n.name);
      const mat = new THREE.MeshStandardMaterial({
        color: safeColor(n.color),
        roughness: 0.7,
        metalness: 0.05,
        emissive: bad ? new THREE.Color(0x550000) : new THREE.Color(0),
      });
      const mesh = new THREE.Mesh(geo, mat);
      mesh.name = n.name;
      // The oriented box's centre (differs from the origin for off-centre assets).
      mesh.position.set(...(n.center ?? n.position));
      mesh.rotation.set(n.rotation[0] * DEG, n.rotation[1] * DEG, n.rotation[2] * DEG, "XYZ");
      mesh.userData.node = n;
      const edges = new THREE.LineSegments(
        new THREE.EdgesGeometry(geo),
        new THREE.LineBasicMaterial({
          color: bad ? 0xff2222 : n.name === this.selected ? 0x3794ff : 0x000000,
          transparent: !bad,
          opacity: bad ? 1 : 0.35,
        }),
      );
      edges.name = bad ? "failing-outline" : "outline";
      if (bad) edges.scale.setScalar(1.02);
      mesh.add(edges);
      this.objects.add(mesh);
    }
    if (!this.framed && this.objects.children.length) {
      const box = new THREE.Box3().setFromObject(this.objects);
      const center = box.getCenter(new THREE.Vector3());
      const size = box.getSize(new THREE.Vector3()).length() || 1;
      this.controls?.target.copy(center);
      this.camera.position.copy(center.clone().add(new THREE.Vector3(0.8, -0.7, 0.55).multiplyScalar(size)));
      this.controls?.update();
      this.framed = true;
    }
    this.draw();
  }

  private pick(e: PointerEvent): void {
    if (!this.renderer) return;
    const rect = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((e.clientX - rect.left) / rect.width) * 2 - 1, -((e.clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const hit = ray.intersectObjects(this.objects.children, false)[0];
    this.select(hit ? hit.object.name : null);
  }

  /** Selects an object by name (a click in the canvas or in the list). */
  select(name: string | null): void {
    this.selected = name;
    this.build();
    this.renderSide();
  }

  private renderSide(): void {
    clear(this.side);
    const d = this.data;
    const failing = this.failing();
    const node = d?.scene?.nodes.find((n) => n.name === this.selected);
    this.side.appendChild(h("h3", {}, "Selected"));
    if (node) {
      const fmt = (v: number[]) => v.map((x) => x.toFixed(3)).join(", ");
      const props: Array<[string, string]> = [
        ["name", visibleName(node.name)],
        ["kind", node.kind],
        ["parent", node.parent ?? "–"],
        ["position", fmt(node.position)],
        ["rotation°", fmt(node.rotation)],
        ["scale", fmt(node.scale)],
        ["dimensions", fmt(node.dimensions)],
        ["color", node.color ?? "–"],
        ["bbox min", fmt(node.bbox.min)],
        ["bbox max", fmt(node.bbox.max)],
      ];
      if (node.material) props.push(["material", JSON.stringify(node.material)]);
      this.side.appendChild(h("table", { class: "grid props" }, ...props.map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, v)))));
      for (const c of failing.get(node.name) ?? [])
        this.side.appendChild(h("div", { class: "fail" }, `✗ ${c.name}${c.reason ? `: ${c.reason}` : ""}`));
    } else this.side.appendChild(h("div", { class: "empty" }, "Click an object."));
    this.side.appendChild(h("h3", {}, "Objects"));
    for (const n of d?.scene?.nodes ?? [])
      this.side.appendChild(
        h(
          "div",
          {
            class: `item obj${failing.has(n.name) ? " fail" : ""}${n.name === this.selected ? " active" : ""}`,
            onclick: () => this.select(n.name),
          },
          `${failing.has(n.name) ? "✗ " : ""}${visibleName(n.name)}`,
          h("span", { class: "meta-item" }, ` ${n.kind}`),
        ),
      );
    this.side.appendChild(h("h3", {}, "Checks"));
    if (!d?.checks.length) this.side.appendChild(h("div", { class: "empty" }, "No check results."));
    for (const c of d?.checks ?? [])
      this.side.appendChild(
        h(
          "div",
          { class: c.passed ? "pass check" : "fail check" },
          `${c.passed ? "✓" : "✗"} ${c.name}${c.targets.length ? ` (${c.targets.join(", ")})` : ""}${c.reason ? `: ${c.reason}` : ""}`,
        ),
      );
    this.side.appendChild(h("h3", {}, "Renders"));
    const imgs = d?.images ?? [];
    if (!imgs.length) this.side.appendChild(h("div", { class: "empty" }, "No render_view images yet."));
    const at = d?.row ?? 0;
    for (const img of imgs)
      this.side.appendChild(
        h(
          "div",
          { class: `renders${img.row > at ? " later" : ""}` },
          h("div", { class: "meta-item" }, `step ${img.row}${img.row > at ? " (later)" : ""}`),
          renderImage(img.mime, img.data, "", `render at step ${img.row}`),
        ),
      );
  }
}
