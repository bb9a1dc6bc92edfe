import { useEffect, useState } from 'preact/hooks';
import { gql } from './api';
import { Messages } from './messages';

interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface ReviewedPhoto {
  id: string;
  largeUrl: string;
  thumbnailUrl: string;
  hidden: boolean;
  meta: { originalFileName: string };
  bibs: Array<{
    number: string;
    readText: string | null;
    confidence: number;
    source: string;
    status: string;
    box: Region | null;
  }>;
  faces: Array<{ box: Region; quality: number | null }>;
}

interface QueuePage {
  items: QueueItem[];
  endCursor: string | null;
  hasNextPage: boolean;
}

interface QueueItem {
  photo: { id: string; thumbnailUrl: string; meta: { originalFileName: string } };
  reasons: string[];
}

const PHOTO_FIELDS = `id largeUrl thumbnailUrl hidden meta { originalFileName }
  bibs { number readText confidence source status box { x y width height } } faces { box { x y width height } quality }`;
const QUEUE = `query($orgId: Int!, $eventId: Int!, $after: String) { reviewQueue(orgId: $orgId, eventId: $eventId, first: 24, after: $after) {
  items { photo { id thumbnailUrl meta { originalFileName } } reasons } endCursor hasNextPage } }`;
const PHOTO = `query($orgId: Int!, $eventId: Int!, $imageId: String!) { reviewPhoto(orgId: $orgId, eventId: $eventId, imageId: $imageId) { ${PHOTO_FIELDS} } }`;
const mutation = (name: string, bib = false) =>
  `mutation($orgId: Int!, $eventId: Int!, $imageId: String!${bib ? ', $bib: String!' : ''}) {
    ${name}(orgId: $orgId, eventId: $eventId, imageId: $imageId${bib ? ', bib: $bib' : ''}) { ${PHOTO_FIELDS} } }`;

const REASONS: Record<string, string> = {
  NO_BIB: 'no bib',
  REJECTED_READ: 'rejected read',
  COMPLETED_READ: 'completed read',
};
const SOURCES: Record<string, string> = {
  READ: 'read',
  COMPLETED: 'completed from the start list',
  ORGANISER: 'organiser',
};
const percent = (value: number) => `${(value * 100).toFixed(2)}%`;
const boxStyle = (box: Region) => ({
  left: percent(box.x),
  top: percent(box.y),
  width: percent(box.width),
  height: percent(box.height),
});

/** The review: the queue of photos the machine may have got wrong, and one photo with its bib and face boxes to correct. */
export function ReviewPage({ orgId, eventId }: { orgId: number; eventId: number }) {
  const ids = { orgId, eventId };
  const [queue, setQueue] = useState<QueueItem[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [photo, setPhoto] = useState<ReviewedPhoto | null>(null);
  const [bib, setBib] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const loadQueue = async (after: string | null = null) => {
    const d = await gql<{ reviewQueue: QueuePage }>(QUEUE, { ...ids, after });
    setQueue((q) => [...(after ? (q ?? []) : []), ...d.reviewQueue.items]);
    setNext(d.reviewQueue.hasNextPage ? d.reviewQueue.endCursor : null);
  };
  const run = (work: () => Promise<unknown>) => {
    setError(null);
    setNotice(null);
    work().catch((err: Error) => setError(err.message));
  };
  useEffect(() => run(() => loadQueue()), [orgId, eventId]);

  const open = (imageId: string) =>
    run(async () => {
      setConfirmDelete(false);
      setPhoto((await gql<{ reviewPhoto: ReviewedPhoto }>(PHOTO, { ...ids, imageId })).reviewPhoto);
    });
  const change = (name: string, message: string, extra: Record<string, string> = {}) =>
    run(async () => {
      const d = await gql<Record<string, ReviewedPhoto>>(mutation(name, 'bib' in extra), {
        ...ids,
        imageId: photo!.id,
        ...extra,
      });
      setPhoto(d[name]);
      setNotice(message);
      await loadQueue();
    });
  const remove = () =>
    run(async () => {
      await gql(
        `mutation($orgId: Int!, $eventId: Int!, $imageId: String!) { deletePhoto(orgId: $orgId, eventId: $eventId, imageId: $imageId) { id } }`,
        { ...ids, imageId: photo!.id },
      );
      setNotice(`Photo ${photo!.meta.originalFileName} deleted.`);
      setPhoto(null);
      setConfirmDelete(false);
      await loadQueue();
    });

  return (
    <section>
      <h1>Review</h1>
      <Messages error={error} notice={notice} />
      <div class="review">
        <div class="card">
          <h2>To review</h2>
          {queue === null ? (
            <p>Loading…</p>
          ) : queue.length === 0 ? (
            <p data-testid="queue-empty">Nothing to review.</p>
          ) : (
            <ul class="queue">
              {queue.map((item) => (
                <li key={item.photo.id}>
                  <button
                    class={`thumb${photo?.id === item.photo.id ? ' selected' : ''}`}
                    onClick={() => open(item.photo.id)}
                  >
                    <img src={item.photo.thumbnailUrl} alt="" loading="lazy" />
                    <span class="file-name">{item.photo.meta.originalFileName}</span>
                    <span class="reasons">{item.reasons.map((r) => REASONS[r] ?? r).join(', ')}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {next && <button onClick={() => run(() => loadQueue(next))}>More</button>}
          <form
            class="open-photo"
            onSubmit={(e) => {
              e.preventDefault();
              const id = (e.currentTarget.elements.namedItem('photo-id') as HTMLInputElement).value.trim();
              if (id) open(id);
            }}
          >
            <label for="photo-id">Open a photo by id</label>
            <input id="photo-id" name="photo-id" autocomplete="off" />
            <button type="submit">Open</button>
          </form>
        </div>
        {photo && (
          <div class="card" data-testid="reviewed-photo">
            <h2>
              {photo.meta.originalFileName}
              {photo.hidden && <span class="badge"> hidden</span>}
            </h2>
            <figure class="boxes">
              <img src={photo.largeUrl} alt={`Photo ${photo.meta.originalFileName}`} />
              {photo.faces.map((f, i) => (
                <span key={`f${i}`} class="box face" style={boxStyle(f.box)} aria-hidden="true" />
              ))}
              {photo.bibs
                .filter((b) => b.box)
                .map((b, i) => (
                  <span
                    key={`b${i}`}
                    class={`box bib ${b.status.toLowerCase()}`}
                    style={boxStyle(b.box!)}
                    aria-hidden="true"
                  >
                    <span>{b.number}</span>
                  </span>
                ))}
            </figure>
            <p>{photo.faces.length} faces (dashed boxes); bib boxes in green (found by) or red (not found by).</p>
            <table>
              <caption>Bibs</caption>
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">Status</th>
                  <th scope="col">Source</th>
                  <th scope="col">Read</th>
                  <th scope="col">
                    <span class="visually-hidden">Action</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {photo.bibs.length === 0 && (
                  <tr>
                    <td colSpan={5}>No bib on this photo.</td>
                  </tr>
                )}
                {photo.bibs.map((b, i) => (
                  <tr key={i} data-testid="bib-row">
                    <td data-label="Number">{b.number}</td>
                    <td data-label="Status">{b.status.toLowerCase()}</td>
                    <td data-label="Source">{SOURCES[b.source] ?? b.source}</td>
                    <td data-label="Read">
                      {b.readText ?? '-'}
                      {b.readText ? ` (${Math.round(b.confidence * 100)}%)` : ''}
                    </td>
                    <td>
                      {b.status !== 'REJECTED' && (
                        <button onClick={() => change('removePhotoBib', `Bib ${b.number} removed.`, { bib: b.number })}>
                          Remove<span class="visually-hidden"> bib {b.number}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <form
              class="actions-row"
              onSubmit={(e) => {
                e.preventDefault();
                const value = bib.trim();
                if (value)
                  change('addPhotoBib', `Bib ${value} added: participants find the photo by it.`, { bib: value });
                setBib('');
              }}
            >
              <label for="add-bib">Bib number</label>
              <input
                id="add-bib"
                value={bib}
                maxLength={12}
                inputMode="numeric"
                autocomplete="off"
                onInput={(e) => setBib((e.target as HTMLInputElement).value)}
              />
              <button type="submit" class="primary">
                Add bib
              </button>
            </form>
            <div class="actions-row">
              {photo.hidden ? (
                <button onClick={() => change('unhidePhoto', 'The photo is shown again.')}>Unhide</button>
              ) : (
                <button onClick={() => change('hidePhoto', 'The photo is hidden from participants.')}>Hide</button>
              )}
              {!confirmDelete ? (
                <button class="danger" onClick={() => setConfirmDelete(true)}>
                  Delete
                </button>
              ) : (
                <span class="confirm" role="group" aria-label="Confirm deletion">
                  Delete the original, previews, bibs and faces for good?
                  <button class="danger" onClick={remove}>
                    Yes, delete
                  </button>
                  <button onClick={() => setConfirmDelete(false)}>Cancel</button>
                </span>
              )}
            </div>
          </div>
        )}
      </div>
    </section>
  );
}
