package delayedtasks

import (
	"context"
	"net/http"
)

// CreateTasksItem is the outcome of one item of [Client.CreateTasks]: either Task (and Created)
// or Err is set.
type CreateTasksItem struct {
	// Index is the item's position in the slice given to CreateTasks.
	Index int
	// TaskID is the id sent for the item, generated when the request had none. Re-send an item
	// that failed with UNAVAILABLE under this id.
	TaskID string
	// Task is the created or existing task when the item succeeded.
	Task *Task
	// Created is true for 201 (made now) and false for 200 (an identical task existed).
	Created bool
	// Err is the *DelayedTaskError a single Create of this item would have returned (Status 0 when it
	// was refused before sending), or nil.
	Err error
}

type batchBody struct {
	Tasks []createBody `json:"tasks"`
}

type batchResponse struct {
	Results []batchItem `json:"results"`
}

type batchItem struct {
	Index  int        `json:"index"`
	Status int        `json:"status"`
	Task   *Task      `json:"task"`
	Error  *wireError `json:"error"`
}

// CreateTasks creates up to 100 tasks in one request (POST /api/v1/tasks/batch) and returns one
// result per request, in order. An item refused by the checks before sending gets its
// INVALID_ARGUMENT in its result and is not sent; the others still are. Task ids are generated
// before the first attempt, so the whole request is retried like Create (503, 429, network
// errors); an item answered with its own error is never re-sent. A failure of the whole request
// (401, 403, a 400 for the list itself, other 5xx, the last retry) is returned as err, an
// *DelayedTaskError.
func (c *Client) CreateTasks(ctx context.Context, reqs []*CreateTaskRequest) ([]CreateTasksItem, error) {
	results := make([]CreateTasksItem, len(reqs))
	bodies := make([]createBody, 0, len(reqs))
	sent := make([]int, 0, len(reqs)) // sent[position in bodies] = index in reqs
	for i, req := range reqs {
		results[i].Index = i
		body, err := newCreateBody(req)
		if err != nil {
			if req != nil {
				results[i].TaskID = req.TaskID
			}
			results[i].Err = err
			continue
		}
		results[i].TaskID = body.TaskID
		bodies = append(bodies, body)
		sent = append(sent, i)
	}
	if len(reqs) > 0 && len(bodies) == 0 {
		return results, nil
	}
	var out batchResponse
	status, header, err := c.doWithHeader(ctx, http.MethodPost, "/api/v1/tasks/batch", nil, batchBody{bodies}, &out)
	if err != nil {
		return nil, err
	}
	requestID := header.Get(requestIDHeader)
	answered := make([]bool, len(bodies))
	for _, item := range out.Results {
		if item.Index < 0 || item.Index >= len(bodies) || (item.Error == nil && item.Task == nil) {
			continue
		}
		answered[item.Index] = true
		r := &results[sent[item.Index]]
		if item.Error != nil {
			r.Err = item.Error.apiError(item.Status, requestID)
			continue
		}
		r.Task, r.Created = item.Task, item.Status == http.StatusCreated
	}
	for pos, ok := range answered {
		if !ok {
			results[sent[pos]].Err = &DelayedTaskError{Code: CodeUnknown, Message: "the response has no result for this item",
				Status: status, RequestID: requestID}
		}
	}
	return results, nil
}
