/**
 * The world's data types, re-exported in one place. The wire shapes (settings, event bodies,
 * stamped events, snapshots) are defined once, as zod schemas in `protocol.ts`; their types are
 * inferred from those schemas, so what is validated and what is typed cannot drift apart.
 */
export { type Theme, THEMES, type ThemeSetting } from "./themes.ts";
export type {
  ClientBody,
  Countdown,
  EventBody,
  GunBody,
  HostAction,
  LaunchBody,
  LiveShow,
  Rules,
  RulesBody,
  SceneEvent,
  Settings,
  SettingsBody,
  SettingsLock,
  ShowBody,
  ShowCancelBody,
  ShowCue,
  ShowRequestBody,
  TrackRef,
  WorldSnapshot,
} from "./protocol.ts";
