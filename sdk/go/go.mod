module github.com/delayed-tasks/delayed-task-service/sdk/go

go 1.24
