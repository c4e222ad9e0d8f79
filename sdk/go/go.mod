module github.com/delayed-tasks/sdk-go

go 1.24
