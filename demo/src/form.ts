// Binds the page's settings forms: every number field is checked as the user
// types (an inline message under it, `aria-invalid`), and only a valid value
// is ever used — what the field shows is what trains.
import {
  checkNumber,
  isNumberKey,
  readSettings,
  type Settings,
  writeSettings,
} from './settings.js';

type Control = HTMLInputElement | HTMLSelectElement;

function controlsOf(form: HTMLFormElement): Control[] {
  return [...form.elements].filter(
    (el): el is Control => el instanceof HTMLInputElement || el instanceof HTMLSelectElement,
  );
}

/** Options of {@link SettingsForm}. */
export interface SettingsFormOptions {
  /** The forms whose controls are named after {@link Settings} keys. */
  forms: HTMLFormElement[];
  /** Settings to show first. */
  initial: Settings;
  /** Called after a valid change, with the settings now in use. */
  onChange: (settings: Settings) => void;
  /** Called whenever a form turns valid or invalid. */
  onValidity: (form: HTMLFormElement, valid: boolean) => void;
}

/** The settings forms: fill, check as typed, commit valid values. */
export class SettingsForm {
  private current: Settings;
  private readonly messages = new Map<HTMLInputElement, HTMLElement>();

  constructor(private readonly o: SettingsFormOptions) {
    this.current = o.initial;
    for (const form of o.forms) {
      for (const el of controlsOf(form)) {
        if (el instanceof HTMLInputElement && isNumberKey(el.name)) {
          const msg = document.createElement('small');
          msg.className = 'field-error';
          msg.id = `${el.name}-error`;
          msg.setAttribute('aria-live', 'polite');
          el.setAttribute('aria-describedby', msg.id);
          el.after(msg);
          this.messages.set(el, msg);
        }
      }
      form.addEventListener('input', () => this.check(form));
      form.addEventListener('change', () => {
        if (this.check(form)) this.commit(form);
      });
      form.addEventListener('submit', (e) => e.preventDefault());
    }
    this.fill(false);
  }

  /** The settings in use (valid values only). */
  get settings(): Settings {
    return this.current;
  }

  /** Whether every field of `form` holds a usable value. */
  valid(form: HTMLFormElement): boolean {
    return controlsOf(form).every((el) => el.getAttribute('aria-invalid') !== 'true');
  }

  /** Show the settings in use in every control, and clear the messages (`notify`: report validity). */
  fill(notify = true): void {
    for (const form of this.o.forms) {
      for (const el of controlsOf(form)) {
        const key = el.name as keyof Settings;
        if (key in this.current) el.value = String(this.current[key]);
      }
      this.check(form, notify);
    }
  }

  /** Check every number field of `form`; update messages; report validity. */
  private check(form: HTMLFormElement, notify = true): boolean {
    let valid = true;
    for (const el of controlsOf(form)) {
      const msg = el instanceof HTMLInputElement ? this.messages.get(el) : undefined;
      if (!msg || !isNumberKey(el.name)) continue;
      const r = checkNumber(el.name, el.value);
      msg.textContent = r.ok ? '' : r.message;
      if (r.ok) el.removeAttribute('aria-invalid');
      else {
        el.setAttribute('aria-invalid', 'true');
        valid = false;
      }
    }
    if (notify) this.o.onValidity(form, valid);
    return valid;
  }

  /** Take `form`'s values into the settings (and the URL). */
  private commit(form: HTMLFormElement): void {
    const next: Record<string, unknown> = { ...this.current };
    for (const el of controlsOf(form)) {
      if (!(el.name in this.current)) continue;
      const r = isNumberKey(el.name) ? checkNumber(el.name, el.value) : undefined;
      next[el.name] = r ? (r.ok ? r.value : next[el.name]) : el.value;
    }
    this.current = readSettings(writeSettings(next as unknown as Settings));
    history.replaceState(null, '', `${location.pathname}${writeSettings(this.current)}`);
    this.o.onChange(this.current);
  }
}
