/**
 * Instant feedback for a click: a warm ring that blooms on the snow where the firework will rise,
 * shown locally at once while the launch makes its round trip through the server.
 */
import * as THREE from "three";

/** Rings that can be on screen at once (older ones are reused). */
const RINGS = 6;
/** How long a ring lives, seconds. */
const LIFETIME = 0.9;

/** A small pool of fading rings on the ground. */
export class ClickMarker {
  /** Add this to the scene. */
  readonly group = new THREE.Group();
  private readonly geometry = new THREE.RingGeometry(0.7, 1, 48);
  private readonly rings: THREE.Mesh<THREE.RingGeometry, THREE.MeshBasicMaterial>[] = [];
  private readonly born = new Float64Array(RINGS).fill(-Infinity);
  private next = 0;
  /** A still ring instead of a growing one (reduced motion); may change at any time. */
  calm: boolean;

  /** `calm` (reduced motion) shows a still ring instead of a growing one. */
  constructor(calm: boolean) {
    this.calm = calm;
    this.geometry.rotateX(-Math.PI / 2);
    for (let i = 0; i < RINGS; i++) {
      const material = new THREE.MeshBasicMaterial({
        color: 0xffc27a,
        transparent: true,
        opacity: 0,
        depthWrite: false,
        blending: THREE.AdditiveBlending,
      });
      const ring = new THREE.Mesh(this.geometry, material);
      ring.visible = false;
      this.rings.push(ring);
      this.group.add(ring);
    }
  }

  /** Shows a ring at ground point (x, z) starting at `seconds`. */
  mark(x: number, z: number, seconds: number): void {
    const ring = this.rings[this.next];
    this.born[this.next] = seconds;
    this.next = (this.next + 1) % RINGS;
    ring.position.set(x, 0.15, z);
    ring.visible = true;
  }

  /** Grows and fades the rings at time `seconds`. */
  update(seconds: number): void {
    for (let i = 0; i < RINGS; i++) {
      const ring = this.rings[i];
      if (!ring.visible) continue;
      const age = (seconds - this.born[i]) / LIFETIME;
      if (age >= 1 || age < 0) {
        ring.visible = false;
        continue;
      }
      ring.scale.setScalar(this.calm ? 1.5 : 0.5 + age * 2.5);
      ring.material.opacity = (1 - age) * 0.9;
    }
  }

  /** Frees GPU resources. */
  dispose(): void {
    this.geometry.dispose();
    for (const ring of this.rings) ring.material.dispose();
  }
}
