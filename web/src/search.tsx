import { useState } from 'preact/hooks';
import { Api, ApiError, NameMatch } from './api';
import { selfieToSend } from './selfie-file';

export function BibSearch({ initial, onSearch }: { initial: string; onSearch: (bib: string) => void }) {
  const [bib, setBib] = useState(initial);
  return (
    <form
      class="finder"
      role="search"
      aria-label="Search by BIB"
      onSubmit={(e) => {
        e.preventDefault();
        if (bib.trim()) onSearch(bib.trim());
      }}
    >
      <label for="bib">BIB number</label>
      <div class="inline">
        <input
          id="bib"
          name="bib"
          inputMode="numeric"
          autoComplete="off"
          maxLength={32}
          required
          value={bib}
          onInput={(e) => setBib(e.currentTarget.value)}
        />
        <button type="submit">Find</button>
      </div>
    </form>
  );
}

/** Choosing a picture runs the (billed) search once; the result is then read back by its request_id. */
export function SelfieSearch({ api, onResult }: { api: Api; onResult: (requestId: string) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onChange = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const result = await api.searchFaces(await selfieToSend(file));
      onResult(result.request_id);
    } catch (e) {
      setError((e as ApiError).message);
    } finally {
      setBusy(false);
      input.value = '';
    }
  };
  return (
    <div class="finder">
      <label for="selfie">Selfie</label>
      <input
        id="selfie"
        type="file"
        accept="image/*"
        capture="user"
        disabled={busy}
        aria-describedby="selfie-help"
        onChange={(e) => void onChange(e.currentTarget)}
      />
      <p id="selfie-help" class="help">
        Take or choose a clear photo of your face. We use it only to find you in this event's photos.
      </p>
      {busy && <p role="status">Looking for you in the photos…</p>}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** A name typed leads to the start list's matches; choosing one shows that bib's photos. */
export function NameSearch({ api, onChoose }: { api: Api; onChoose: (bib: string) => void }) {
  const [name, setName] = useState('');
  const [matches, setMatches] = useState<NameMatch[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const search = async () => {
    setBusy(true);
    setError(null);
    try {
      setMatches((await api.names(name.trim())).participants);
    } catch (e) {
      setMatches(null);
      setError((e as ApiError).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="finder"
      role="search"
      aria-label="Search by name"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) void search();
      }}
    >
      <label for="name">Name</label>
      <div class="inline">
        <input
          id="name"
          name="name"
          autoComplete="off"
          maxLength={100}
          required
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Find
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {matches && matches.length === 0 && <p role="status">Nobody of that name is on the start list.</p>}
      {matches && matches.length > 0 && (
        <ul class="names" aria-label="Participants found">
          {matches.map((m) => (
            <li key={m.bib}>
              <button type="button" class="name-match" onClick={() => onChoose(m.bib)}>
                {m.name}{' '}
                <span class="help">
                  BIB {m.bib} · {m.photo_count === 1 ? '1 photo' : `${m.photo_count} photos`}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
