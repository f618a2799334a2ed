"""A small notes HTTP API (FastAPI): the OpenAPI upstream's test subject.

Serves on 127.0.0.1 at a free port, printed as `listening on PORT` once it accepts. Writes
need the API key `X-API-Key: secret-key`; `/openapi.json` is FastAPI's generated document
(OpenAPI 3.1).

    python notes_api.py
"""

import asyncio
import socket
import sys
from typing import Optional

import uvicorn
from fastapi import Depends, FastAPI, Header, HTTPException, Query
from fastapi.responses import RedirectResponse, Response
from fastapi.security import APIKeyHeader
from pydantic import BaseModel

app = FastAPI(title="Notes API", version="1.0.0")
api_key = APIKeyHeader(name="X-API-Key")
# The first bytes of a PNG file: not UTF-8.
PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xFE])
NOTES: dict[int, dict] = {
    1: {"id": 1, "title": "Groceries", "body": "eggs, milk", "tag": "home"},
    2: {"id": 2, "title": "Standup", "body": "ship the gateway", "tag": "work"},
}


class NoteIn(BaseModel):
    title: str
    body: str = ""
    tag: Optional[str] = None


class NotePatch(BaseModel):
    title: Optional[str] = None
    body: Optional[str] = None


class Note(BaseModel):
    id: int
    title: str
    body: str
    tag: Optional[str] = None


class NoteList(BaseModel):
    notes: list[Note]
    total: int


def writer(key: str = Depends(api_key)) -> None:
    if key != "secret-key":
        raise HTTPException(status_code=403, detail="wrong API key")


@app.get("/notes", operation_id="list_notes", summary="List notes", tags=["notes"])
def list_notes(tag: Optional[str] = None, limit: int = Query(10, ge=1, le=100)) -> NoteList:
    """Notes, newest first, optionally only those with a tag."""
    found = [n for n in NOTES.values() if tag is None or n["tag"] == tag]
    found.sort(key=lambda n: -n["id"])
    return NoteList(notes=[Note(**n) for n in found[:limit]], total=len(found))


@app.get("/notes/{note_id}", operation_id="get_note", summary="Get a note", tags=["notes"])
def get_note(note_id: int, x_trace: Optional[str] = Header(None)) -> Note:
    """One note by its id."""
    if note_id not in NOTES:
        raise HTTPException(status_code=404, detail=f"no note {note_id}")
    note = dict(NOTES[note_id])
    if x_trace:
        note["body"] = f"{note['body']} (trace {x_trace})"
    return Note(**note)


@app.post("/notes", operation_id="create_note", summary="Create a note", tags=["notes"],
          status_code=201, dependencies=[Depends(writer)])
def create_note(note: NoteIn) -> Note:
    """A new note."""
    new_id = max(NOTES, default=0) + 1
    NOTES[new_id] = {"id": new_id, **note.model_dump()}
    return Note(**NOTES[new_id])


@app.put("/notes/{note_id}", operation_id="replace_note", summary="Replace a note",
         tags=["notes"], dependencies=[Depends(writer)])
def replace_note(note_id: int, note: NoteIn) -> Note:
    NOTES[note_id] = {"id": note_id, **note.model_dump()}
    return Note(**NOTES[note_id])


@app.patch("/notes/{note_id}", operation_id="edit_note", summary="Edit a note",
           tags=["notes"], dependencies=[Depends(writer)])
def edit_note(note_id: int, patch: NotePatch) -> Note:
    if note_id not in NOTES:
        raise HTTPException(status_code=404, detail=f"no note {note_id}")
    NOTES[note_id].update(patch.model_dump(exclude_none=True))
    return Note(**NOTES[note_id])


@app.delete("/notes/{note_id}", operation_id="delete_note", summary="Delete a note",
            tags=["notes"], status_code=204, dependencies=[Depends(writer)])
def delete_note(note_id: int) -> None:
    if NOTES.pop(note_id, None) is None:
        raise HTTPException(status_code=404, detail=f"no note {note_id}")


@app.get("/moved/{note_id}", operation_id="moved_note", tags=["notes"])
def moved_note(note_id: int) -> RedirectResponse:
    """Moved: a redirect within the API."""
    return RedirectResponse(f"/notes/{note_id}", status_code=307)


@app.get("/elsewhere", operation_id="elsewhere", tags=["ops"])
def elsewhere() -> RedirectResponse:
    """A redirect to another origin (which a caller holding this API's credentials must not follow)."""
    return RedirectResponse("http://127.0.0.1:9/steal", status_code=307)


@app.get("/slow", operation_id="slow", tags=["ops"])
async def slow(seconds: float = 2.0) -> dict:
    """Answers after a while."""
    await asyncio.sleep(seconds)
    return {"slept": seconds}


@app.get("/logo", operation_id="logo", tags=["ops"], response_class=Response,
         responses={200: {"content": {"image/png": {}}}})
def logo() -> Response:
    """The API's logo: bytes, not text."""
    return Response(content=PNG, media_type="image/png")


@app.get("/legacy/notes", operation_id="legacy_list", deprecated=True, tags=["legacy"])
def legacy_list() -> list[Note]:
    return [Note(**n) for n in NOTES.values()]


@app.get("/library/{item}", operation_id="library_item", summary="Look an item up in the library",
         tags=["library"])
def library_item(item: str, x_library_key: str = Header()) -> dict:
    """An item of the partner library, whose key is an ordinary header parameter (as FastAPI
    code often takes one), so that it is an argument of the tool unless the gateway hides it."""
    if x_library_key != "library-key":
        raise HTTPException(status_code=403, detail="wrong library key")
    return {"item": item, "shelf": "B3"}


@app.get("/health", operation_id="health", tags=["ops"])
def health() -> dict:
    return {"ok": True}


if __name__ == "__main__":
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: no 40 ms delayed-ACK stall between a header and a body.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning")
    server = uvicorn.Server(config)
    print(f"listening on {port}", flush=True)
    server.run(sockets=[sock])
